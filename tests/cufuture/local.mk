# tests/cufuture: see the files beside this one
