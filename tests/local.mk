# tests: fragments are added below
