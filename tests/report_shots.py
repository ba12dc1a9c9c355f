"""Screenshots of a rendered HTML report, one PNG per <h2> section, for the browser tests of the report."""

from __future__ import annotations

import re
from pathlib import Path

SECTION_BOXES_JS = """() => {
    const hs = [...document.querySelectorAll('h2')];
    const end = document.documentElement.scrollHeight;
    return hs.map((h, i) => {
        const top = h.getBoundingClientRect().top + window.scrollY;
        const next = i + 1 < hs.length ? hs[i + 1].getBoundingClientRect().top + window.scrollY : end;
        return {title: h.innerText, y: top, height: Math.max(1, Math.min(next - top, 16000))};
    });
}"""


def screenshot_sections(page, shots: Path, width: int) -> list[dict]:
    """Screenshot every <h2> section of the open ``page`` into ``shots`` (``NN_title.png``, ``width`` px wide);
    the sections' boxes (title, y, height)."""
    boxes = page.evaluate(SECTION_BOXES_JS)
    for i, box in enumerate(boxes, start=1):
        slug = re.sub(r"[^a-z0-9]+", "_", box["title"].lower()).strip("_")[:40]
        page.screenshot(path=str(shots / f"{i:02d}_{slug}.png"), full_page=True,
                        clip={"x": 0, "y": box["y"], "width": width, "height": box["height"]})
    return boxes
