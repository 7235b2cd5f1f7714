"""The record of a snippet run: written by the test run and live verification, read by the build."""
