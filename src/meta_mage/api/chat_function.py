"""The chat function's ASGI app: uvicorn serves it behind the Lambda Web Adapter (functions/chat/run.sh).

Reads (formats, archetypes, drafts, welcome) are the small functions' job in the cloud, so they are off here.
"""

from __future__ import annotations

from meta_mage.startup import starting_up

with starting_up():
    from meta_mage.api.factory import build_app
    from meta_mage.config import get_settings

    app = build_app(get_settings(), serve_reads=False)
