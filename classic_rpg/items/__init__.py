"""Items: templates (item ``stats:``), ItemFactory, and the item commands."""
