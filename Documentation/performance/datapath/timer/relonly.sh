#!/bin/bash
# run only some tests of reliability_test, with a given module
cd /work/main/selftests
source ./lib.sh
spray_lib_load_spray "$1" || exit 1
shift
./reliability_test "$@"
