"""The heist pack: a second, small content pack that extends quest generation."""
