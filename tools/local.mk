# tools: the scripts the build runs (the table's generator and its refresh,
# the GPU-code embedder) and those run by hand (the Debian set-up of the
# README's first command, the GPU checks on a GPU machine).  Nothing here is
# built.
EXTRA_DIST += tools/gensyms.py tools/cudaapi.py tools/mktable.py tools/update-table.sh tools/bin2c.py \
	tools/gpu-check.sh tools/setup-debian.sh tools/depgraph.py

# make layout-check: the cycles between the files of the libraries and the
# command, one header per module, and the folders with the arrows between
# them (tools/depgraph.py; tests/layout runs the first two in make check).
layout-check: libcushim.la cushim$(EXEEXT)
	$(PYTHON) $(top_srcdir)/tools/depgraph.py --nm '$(NM)' --srcdir $(top_srcdir) .
	$(PYTHON) $(top_srcdir)/tools/depgraph.py --nm '$(NM)' --srcdir $(top_srcdir) --headers .
	$(PYTHON) $(top_srcdir)/tools/depgraph.py --nm '$(NM)' --srcdir $(top_srcdir) --floors .
.PHONY: layout-check
