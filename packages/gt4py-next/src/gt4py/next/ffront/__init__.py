"""The field-operator frontend of gt4py.next (builtins today; parsing arrives later)."""
