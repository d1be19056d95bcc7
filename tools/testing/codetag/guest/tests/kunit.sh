#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A boot for the KUnit suites alone (make check LAYERS=kunit): they ran
# before init, and the host reads their results from the console. Here,
# only that the kernel ran them: each suite begins with its name.
. /tests/lib.sh

suites=$(dmesg | grep -c "# Subtest: ")
check "the KUnit suites ran before init ($suites suites)" [ "$suites" -gt 0 ]
