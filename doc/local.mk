# doc: the manual page (installed) and the reviewed table of downgrade
# adapters (tests/whitebox checks the code against it).
man1_MANS += doc/cushim.1
EXTRA_DIST += doc/cushim.1 doc/ADAPTERS.md
