# src/cli: see the files beside this one
