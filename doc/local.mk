# doc: the manual page (installed), and the documents the README points to,
# one reader each (tests/cli/docs.sh holds them to the code; tests/whitebox
# checks the code against ADAPTERS.md).
man1_MANS += doc/cushim.1
EXTRA_DIST += doc/cushim.1 doc/ADAPTERS.md doc/DESIGN.md doc/HARDENING.md doc/LAYOUT.md doc/SETTINGS.md \
	doc/TABLE.md doc/TESTING.md doc/USAGE.md
