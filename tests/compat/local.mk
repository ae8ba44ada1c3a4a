# tests/compat: builds against another toolkit's headers.
TESTS += tests/compat/toolkit-12.sh
EXTRA_DIST += tests/compat/toolkit-12.sh
