"""The Examples galleries of the tool pages, rendered with our own engines by
deploy/local/examples.py: the drawn inputs (products, accessories, turntable meshes), the
layouts, one module per family of tools and the generator."""
