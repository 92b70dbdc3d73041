"""Suites built from other agents' test cases (../shared/data); run by `make conformance`, never by `make test`."""
