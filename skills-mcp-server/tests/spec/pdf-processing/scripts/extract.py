"""Prints the text of every page of a PDF (a stand-in written for these tests)."""
import sys

print(sys.argv[1:])
