"""The browser libraries the chat page ships are the pinned, unmodified files listed with their hashes."""

import hashlib
import re
from pathlib import Path

from meta_mage.api.routes.page import PAGE, VENDOR


def test_every_vendored_file_has_its_listed_hash_licence_and_is_used() -> None:
    listed = (VENDOR / "README.md").read_text(encoding="utf-8")
    files = sorted(p for p in VENDOR.iterdir() if p.suffix in {".js", ".css"})
    assert files
    for path in files:
        assert path.name in listed, path.name
        assert hashlib.sha256(path.read_bytes()).hexdigest() in listed, path.name
    for licence in re.findall(r"`(LICENSE[^`]*|NOTICE[^`]*)`", listed):
        assert (VENDOR / licence).is_file(), licence
    page = PAGE.read_text(encoding="utf-8")
    assert all(f"/static/vendor/{p.name}" in page for p in files if not p.name.startswith("swagger"))
    assert "https://" not in re.sub(r"<!--.*?-->", "", page.split("<script>")[0])  # no CDN in the page's head
    assert Path(VENDOR / "README.md").exists()
