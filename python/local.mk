# python: the Python package (cushim/: the command and libcushim.so beside
# two calls into them), the PEP 517 backend that pyproject.toml names
# (backend/) and the repair of a built wheel into a manylinux one, with the
# licences of the libraries it vendors (repair.py).  Nothing here is built by
# make; tests/wheel (make check-wheel) builds and tests the wheels.
PYTHON_FILES = pyproject.toml python/cushim/__init__.py python/cushim/__main__.py python/cushim/py.typed \
	python/backend/cushim_backend.py python/repair.py
EXTRA_DIST += $(PYTHON_FILES)

# What a wheel carries, installed stripped under DESTDIR (the backend runs
# this): the library, the command and the manual, and nothing the tests need
# (make all builds programs that link the toolkit's libcuda.so stub).
wheel-files: $(BUILT_SOURCES)
	$(MAKE) $(AM_MAKEFLAGS) INSTALL_PROGRAM='$(INSTALL_STRIP_PROGRAM)' install_sh_PROGRAM='$(INSTALL_STRIP_PROGRAM)' \
		INSTALL_STRIP_FLAG=-s INSTALL_PROGRAM_ENV="STRIPPROG='$(STRIP)'" \
		install-libLTLIBRARIES install-binPROGRAMS install-man
.PHONY: wheel-files
