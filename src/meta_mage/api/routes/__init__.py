"""The chat app's routers, one per resource; ``meta_mage.api.chat_app.create_app`` includes them."""
