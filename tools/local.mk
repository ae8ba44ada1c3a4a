# tools: the scripts the build runs (the table's generator and its refresh,
# the GPU-code embedder) and those run by hand (the Debian set-up of the
# README's first command, the GPU checks on a GPU machine).  Nothing here is
# built.
EXTRA_DIST += tools/gensyms.py tools/cudaapi.py tools/mktable.py tools/update-table.sh tools/bin2c.py \
	tools/gpu-check.sh tools/setup-debian.sh
