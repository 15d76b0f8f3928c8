#!/usr/bin/env bash
# Screenshots of the docs site and of the README in headless Chromium at 1280 px, plus a check
# that no code block on those pages is cut off or scrolls sideways at that width.
#
#   docs/_hooks/screenshots.sh [OUT_DIR]      (default OUT_DIR: docs/screenshots)
#
# Needs `chromium` (or CHROMIUM=/path/to/chrome) on PATH. Builds the site with
# `mkdocs build --strict` into a temporary folder, renders README.md into a page styled like
# GitHub's README column, serves both on localhost and, per page: one PNG (1280 x HEIGHT,
# HEIGHT=2400 by default; then shrunk with Pillow until it is under 300 kB) and one overflow
# check. Exits non-zero, naming the page and the block, if any code line is wider than its block
# (the site would wrap it; docs/stylesheets/extra.css) or the page itself scrolls sideways.
# Not run in CI (it needs Chromium).
set -euo pipefail

cd "$(dirname "$0")/../.."
OUT=${1:-docs/screenshots}
HEIGHT=${HEIGHT:-2400}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [[ -z "$CHROMIUM" ]]; then
    echo "screenshots.sh: no Chromium found; install it (apt-get install chromium) or set CHROMIUM=" >&2
    exit 2
fi
mkdir -p "$OUT"
WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
    if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

SITE="$WORK/site"
uv run --group docs mkdocs build --strict --quiet --site-dir "$SITE"

# README.md as a page: GitHub's README box is about 880 px wide at a 1280 px window (the
# repository sidebar takes the rest); its code blocks use 85 % monospace and scroll sideways.
mkdir -p "$SITE/_readme"
uv run --group docs python - "$SITE/_readme/index.html" <<'PY'
import pathlib
import sys

import markdown

body = markdown.markdown(
    pathlib.Path("README.md").read_text(encoding="utf-8"),
    extensions=["fenced_code", "tables", "toc"],
)
css = """
body { margin: 0; background: #fff; color: #1f2328;
       font: 16px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
article { box-sizing: border-box; width: 880px; margin: 24px 0 24px 40px; padding: 32px;
          border: 1px solid #d1d9e0; border-radius: 6px; }
h1, h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
code { font: 85%/1.45 ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", monospace;
       background: #eff1f3; padding: .2em .4em; border-radius: 6px; }
pre { background: #f6f8fa; padding: 16px; overflow: auto; border-radius: 6px; }
pre code { background: none; padding: 0; font-size: 85%; }
table { border-collapse: collapse; } td, th { border: 1px solid #d1d9e0; padding: 6px 13px; }
a { color: #0969da; }
"""
page = (
    '<!doctype html><html><head><meta charset="utf-8"><title>README</title>'
    f"<style>{css}</style></head><body><article>{body}</article></body></html>"
)
pathlib.Path(sys.argv[1]).write_text(page, encoding="utf-8")
PY

# The overflow check: the page in a 1280 px wide same-origin frame; every <pre> whose content
# would be wider than its box if the site did not wrap long code lines, and the page itself if it is wider than the window, are listed; with
# an anchor, also where that section starts (headless Chromium shoots a blank page when the URL
# has one, so the section is cropped out of a taller shot).
cat >"$SITE/_check.html" <<'HTML'
<!doctype html><html><body style="margin:0">
<iframe id="f" style="width:1280px;height:2400px;border:0"></iframe>
<script>
const f = document.getElementById("f");
f.onload = () => setTimeout(() => {
  const d = f.contentDocument, out = [];
  // the site wraps over-long code lines (extra.css); measure them as written instead
  const unwrap = d.createElement("style");
  unwrap.textContent = "pre, pre * { white-space: pre !important; overflow-wrap: normal !important }";
  d.head.appendChild(unwrap);
  if (d.documentElement.scrollWidth > d.documentElement.clientWidth + 1)
    out.push("PAGE " + d.documentElement.scrollWidth + "px wide");
  d.querySelectorAll("pre").forEach((p, i) => {
    if (p.closest(".doc-signature")) return;
    for (const el of [p, p.querySelector("code")]) {
      if (el && el.scrollWidth > el.clientWidth + 1) {
        const first = (p.textContent.split("\n")[0] || "").slice(0, 60);
        out.push("PRE#" + i + " " + el.scrollWidth + ">" + el.clientWidth + "px: " + first);
        break;
      }
    }
  });
  const anchor = location.hash.includes("%23") && d.getElementById(location.hash.split("%23")[1]);
  if (anchor)
    out.unshift("ANCHOR " + Math.round(anchor.getBoundingClientRect().top + f.contentWindow.scrollY));
  const r = document.createElement("pre");
  r.id = "result";
  r.textContent = "CHECKED " + d.querySelectorAll("pre").length + " blocks\n" + out.join("\n");
  document.body.appendChild(r);
}, 500);
f.src = decodeURIComponent(location.hash.slice(1));
</script></body></html>
HTML

PORT=$(uv run python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
uv run python -m http.server "$PORT" --bind 127.0.0.1 --directory "$SITE" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 50); do
    if uv run python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/')" 2>/dev/null; then break; fi
    sleep 0.2
done
BASE="http://127.0.0.1:$PORT"

# name -> path (an anchor scrolls the shot to that section)
PAGES=(
    "home|/"
    "quickstart-cartesian|/quickstart/cartesian/"
    "quickstart-next|/quickstart/next/"
    "guide-array-likes|/guides/array-likes/"
    "migration-cartesian|/migration/#gt4pycartesian"
    "readme|/_readme/"
)
CHROME=("$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
        --disable-dev-shm-usage --virtual-time-budget=5000)
FAILED=0
for entry in "${PAGES[@]}"; do
    name=${entry%%|*}
    path=${entry#*|}
    result=$("${CHROME[@]}" --window-size=1400,2500 --dump-dom "$BASE/_check.html#${path//#/%23}" 2>/dev/null |
        uv run python -c 'import html, re, sys; m = re.search(r"<pre id=\"result\">(.*?)</pre>", sys.stdin.read(), re.S); print(html.unescape(m.group(1)) if m else "NO RESULT")')
    echo "$name ($path): $result"
    if [[ "$result" != CHECKED* ]] || grep -qE '^(PRE|PAGE)' <<<"$result"; then
        FAILED=1
    fi
    top=$(sed -n 's/^ANCHOR //p' <<<"$result")
    if [[ -n "$top" ]]; then
        top=$((top > 80 ? top - 80 : 0))  # keep the heading in the shot
        "${CHROME[@]}" --window-size="1280,$((top + HEIGHT))" --screenshot="$OUT/$name.png" "$BASE${path%%#*}" 2>/dev/null
        echo "$top" >"$WORK/$name.top"
    else
        "${CHROME[@]}" --window-size="1280,$HEIGHT" --screenshot="$OUT/$name.png" "$BASE$path" 2>/dev/null
    fi
done

# Shrink each PNG below 300 kB: a 256-colour palette first, then crop a quarter off the bottom
# (the top of the page stays) until it fits.
uv run python - "$OUT" "$WORK" "$HEIGHT" <<'PY'
import pathlib
import sys

from PIL import Image

LIMIT = 300_000
out, work, height = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
for png in sorted(out.glob("*.png")):
    img = Image.open(png).convert("RGB")
    top_file = work / f"{png.stem}.top"
    if top_file.exists():  # an anchored section: cut it out of the taller shot
        top = int(top_file.read_text())
        img = img.crop((0, top, img.width, top + height))
    while True:
        img.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(png, optimize=True)
        if png.stat().st_size < LIMIT or img.height < 400:
            break
        img = img.crop((0, 0, img.width, img.height * 3 // 4))
    print(f"{png}: {img.width}x{img.height}, {png.stat().st_size // 1000} kB")
PY

if [[ $FAILED -ne 0 ]]; then
    echo "screenshots.sh: code blocks cut off or scrolling at 1280 px (listed above)" >&2
    exit 1
fi
