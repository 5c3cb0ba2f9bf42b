"""Rule checkers that run at compile time: the regex subset and the expression rule."""
