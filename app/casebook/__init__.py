"""What is published about rulings: the casebook's pages, the deal diagrams drawn with
the web's card pictures, and the rules pages the cases cite."""
