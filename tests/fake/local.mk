# tests/fake: see the files beside this one
