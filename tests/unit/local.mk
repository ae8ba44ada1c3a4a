# tests/unit: see the files beside this one
