"""The version matrix: every snippet on each declared stack of torch and Python (`make matrix`)."""
