"""The certificate in a real browser (issue 27): Debian's chromium, headless, through
python3-selenium and chromium-driver.

`softmx report` writes two pages, for a clean unit and for one with a planted fault (ties rounded
away from zero). In chromium each page loads with no console error and no request beyond its own
file, shows the verdict banner (green, red), the per-class counts and at least one drawn plot;
the two screenshots differ, and so does the banner's colour. With JavaScript off (chromium's content
setting) chromium draws the same page, pixel for pixel; the page prints (chromium --print-to-pdf). ctest runs this file as
test_report_browser (label `browser`, in the default run); it is skipped, saying so, only when no
browser is installed.
"""

import io
import json
import os
import shutil
import subprocess
import tempfile

import pytest

import softmx
from test_report import data_lines  # the same vector-file reader as the report tests

CHROMIUM = next((p for p in (os.environ.get("SOFTMX_CHROMIUM"), shutil.which("chromium"),
                             shutil.which("chromium-browser"), "/usr/bin/chromium") if p and os.path.exists(p)), None)
DRIVER = next((p for p in (shutil.which("chromedriver"), "/usr/bin/chromedriver") if p and os.path.exists(p)), None)
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
except ImportError:
    webdriver = None

if not CHROMIUM or not DRIVER or webdriver is None:
    pytest.skip("no browser: the browser test needs chromium, chromium-driver and python3-selenium "
                "(scripts/install-deps.sh installs them)", allow_module_level=True)

CLI = os.environ.get("SOFTMX_CLI")

# Root, no network, no display: what chromium needs here.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars"]


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The two reports: (clean, faulty) page paths, through the CLI when it is given."""
    d = tmp_path_factory.mktemp("browser")
    clean = d / "clean.vec"
    softmx.gen("convert", src="f16", to="e5m2", out=clean)
    lines, data = data_lines(clean.read_text())
    _, rdata = data_lines(softmx.gen("convert", src="f16", to="e5m2", round="rna").text)
    for (i, f), (_, g) in zip(data, rdata):
        f[1] = g[1]
        lines[i] = " ".join(f)
    faulty = d / "faulty.vec"
    faulty.write_text("\n".join(lines))
    out = {}
    for name, vec, status in (("clean", clean, 0), ("faulty", faulty, 1)):
        page = d / f"{name}.html"
        if CLI:
            p = subprocess.run([CLI, "report", "--identify", str(vec), "-o", str(page), str(vec)],
                               capture_output=True, text=True)
            assert p.returncode == status, p.stderr
        else:
            softmx.report(vec, identify=vec, out=page)
        out[name] = page
    return out


def new_browser(javascript=True, size="1200,1800"):
    o = webdriver.ChromeOptions()
    o.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="softmx-chromium-")
    for f in FLAGS + [f"--user-data-dir={profile}", f"--window-size={size}"]:
        o.add_argument(f)
    if not javascript:
        o.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    o.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    drv = webdriver.Chrome(service=Service(executable_path=DRIVER), options=o)
    quit_ = drv.quit

    def quit_and_clean():
        quit_()
        shutil.rmtree(profile, ignore_errors=True)

    drv.quit = quit_and_clean
    return drv


@pytest.fixture(scope="module")
def browser():
    drv = new_browser()
    try:
        yield drv
    finally:
        drv.quit()


def load(browser, page):
    browser.get_log("browser")  # (drop what an earlier page left)
    browser.get_log("performance")
    browser.get(page.as_uri())
    browser.find_element(By.ID, "verdict")


def banner_colour(browser, png):
    from PIL import Image
    r = browser.find_element(By.ID, "verdict").rect
    img = Image.open(io.BytesIO(png)).convert("RGB")
    scale = img.width / browser.execute_script("return window.innerWidth")
    return img.getpixel((int((r["x"] + r["width"] - 20) * scale), int((r["y"] + 8) * scale)))


def test_pages_render_without_errors_or_fetches(browser, pages):
    for name, page in pages.items():
        load(browser, page)
        errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
        assert not errors, f"{name}: console errors {errors}"
        urls = []
        for entry in browser.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            if msg.get("method") == "Network.requestWillBeSent":
                urls.append(msg["params"]["request"]["url"])
        assert urls and all(u.startswith(("file:", "data:")) for u in urls), f"{name}: fetched {urls}"


def test_banner_counts_and_plots_are_shown(browser, pages):
    for name, page in pages.items():
        load(browser, page)
        banner = browser.find_element(By.ID, "verdict")
        assert banner.is_displayed()
        assert ("PASS" if name == "clean" else "FAIL") in banner.text
        counts = browser.find_elements(By.CSS_SELECTOR, "table.counts")
        assert counts and counts[0].is_displayed()
        assert "ties" in counts[0].text and "65536" in counts[0].text
        plots = browser.find_elements(By.CSS_SELECTOR, "svg.plot-svg")
        assert len(plots) >= 2
        for p in plots:
            assert p.size["width"] > 200 and p.size["height"] > 80, p.size
        # The grid's embedded raster decoded (an <image> with a data: URL inside the SVG).
        assert browser.execute_script(
            "return Array.from(document.querySelectorAll('svg.plot-svg image')).length") >= 1


def test_a_planted_fault_changes_the_screenshot(browser, pages, tmp_path):
    from PIL import Image, ImageChops
    shots, colours = {}, {}
    for name, page in pages.items():
        load(browser, page)
        png = browser.get_screenshot_as_png()
        (tmp_path / f"{name}.png").write_bytes(png)
        shots[name] = Image.open(io.BytesIO(png)).convert("RGB")
        colours[name] = banner_colour(browser, png)
    assert shots["clean"].size == shots["faulty"].size
    assert ImageChops.difference(shots["clean"], shots["faulty"]).getbbox() is not None
    r, g, b = colours["clean"]
    assert g > r + 40, f"clean banner is not green: {colours['clean']}"
    r, g, b = colours["faulty"]
    assert r > g + 40, f"faulty banner is not red: {colours['faulty']}"
    # The faulty page marks failures in the domain grid, the clean one none.
    load(browser, pages["faulty"])
    red = browser.execute_script(
        "return document.querySelector('svg.plot-svg').innerHTML.includes('#c62828')")
    assert red
    load(browser, pages["clean"])
    assert not browser.execute_script(
        "return document.querySelector('svg.plot-svg').innerHTML.includes('#c62828')")


def run_chromium(args, tmp_path):
    profile = tmp_path / "profile"
    p = subprocess.run([CHROMIUM] + FLAGS + [f"--user-data-dir={profile}"] + args, capture_output=True, timeout=120)
    return p


def test_readable_with_javascript_off_and_prints(pages, tmp_path):
    from PIL import Image
    page = pages["faulty"]
    # The page has no script; with JavaScript off (chromium's content setting) chromium draws the
    # same banner (red, at the top), counts and plots: the screenshot is the one with it on.
    shots = {}
    for mode in ("off", "on"):
        drv = new_browser(javascript=mode == "on", size="1200,2400")
        try:
            drv.get(page.as_uri())
            shots[mode] = Image.open(io.BytesIO(drv.get_screenshot_as_png())).convert("RGB")
            assert "FAIL" in drv.find_element(By.ID, "verdict").text
            assert drv.find_element(By.CSS_SELECTOR, "table.counts").is_displayed()
            assert drv.find_elements(By.CSS_SELECTOR, "svg.plot-svg")[0].size["width"] > 200
        finally:
            drv.quit()
    img = shots["off"]
    reds = sum(1 for x in range(0, img.width, 4) for y in range(0, 300, 4)
               if (lambda c: c[0] > 150 and c[1] < 90 and c[2] < 90)(img.getpixel((x, y))))
    assert reds > 500, reds
    assert list(img.getdata()) == list(shots["on"].getdata())
    p = run_chromium(["--dump-dom", page.as_uri()], tmp_path / "dom")
    dom = p.stdout.decode("utf-8")
    assert 'id="verdict"' in dom and "FAIL" in dom
    assert '<table class="counts">' in dom and "<svg" in dom and "<script" not in dom
    pdf = tmp_path / "faulty.pdf"
    p = run_chromium([f"--print-to-pdf={pdf}", "--no-pdf-header-footer", page.as_uri()], tmp_path / "pdf")
    assert p.returncode == 0, p.stderr[-2000:]
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and len(data) > 20000
    pages_in_pdf = data.count(b"/Type /Page") - data.count(b"/Type /Pages")
    assert 2 <= pages_in_pdf <= 40, pages_in_pdf
