"""Measurement and investigation scripts (not shipped): ``python -m benchmarks.<name>`` from the
repository root. The reference-speed hooks of ``paritygym bench ENV --reference`` live in each env's
reference module; these scripts time the engines' insides and compare with other systems."""
