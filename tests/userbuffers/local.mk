# tests/userbuffers: see the files beside this one
