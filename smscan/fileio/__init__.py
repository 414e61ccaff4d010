"""Reading and writing files safely: atomic writes, bounded reads of regular files, finite numbers."""
