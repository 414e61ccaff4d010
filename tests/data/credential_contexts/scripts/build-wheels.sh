#!/bin/bash
# Builds the manylinux wheels inside the docker image, then uploads them.
set -e -x
for PYBIN in /opt/python/cp3*/bin; do
    "${PYBIN}/pip" install -r /io/dev-requirements.txt
    "${PYBIN}/pip" wheel /io/dist/$package_name-*.tar.gz -w wheelhouse/ -v
done
export TWINE_USERNAME=__token__
export TWINE_PASSWORD=q7fQLkdKlJElCQxEWad5Im7h
twine upload wheelhouse/*.whl
