"""The web table in a real headless Chromium (Debian's chromium + chromium-driver, Selenium).

Starts ``shengji-web`` on a free port, loads the page, plays a complete hand as South by clicking
legal cards (the highlighted ones), checks the result screen, then replays the hand in the
viewer. Skipped where /usr/bin/chromium is missing unless ``SHENGJI_REQUIRE_BROWSER=1`` (set by
``.ci/run``), which turns the skip into a failure. ``SHENGJI_SCREENSHOT=path`` keeps a mid-hand
screenshot there (the README's ``docs/web-table.png`` is made so).
"""

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
pytestmark = pytest.mark.slow


def _need_browser():
    missing = [p for p in (CHROMIUM, DRIVER) if not Path(p).exists()]
    if missing:
        if os.environ.get("SHENGJI_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser test required but {', '.join(missing)} missing (apt-get install "
                        "chromium chromium-driver)")
        pytest.skip(f"{', '.join(missing)} missing")
    pytest.importorskip("selenium")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "agents.web.app", "--port", str(port),
                             "--save-games", str(tmp_path)], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert f"http://127.0.0.1:{port}/" in line, line
    url = re.search(r"http://\S+", line).group(0)
    for _ in range(100):  # the URL is printed before uvicorn listens
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    yield url, tmp_path
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def browser(tmp_path):
    _need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1280,900",
                 f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield driver
    driver.quit()


def test_play_a_hand_in_the_browser_and_replay_it(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    url, saved = server
    d = browser
    d.get(url)
    wait = WebDriverWait(d, 20)
    wait.until(lambda d: d.find_element(By.ID, "status").text == "connected")
    Select(d.find_element(By.ID, "seat")).select_by_value("2")
    Select(d.find_element(By.ID, "decks")).select_by_visible_text("1")
    d.find_element(By.ID, "seed").send_keys("4")
    delay = d.find_element(By.ID, "delay")
    delay.clear()
    delay.send_keys("0")
    d.find_element(By.ID, "start").click()
    shot = os.environ.get("SHENGJI_SCREENSHOT")
    clicks = 0

    def my_turn(d):
        if d.find_element(By.ID, "result").is_displayed():
            return "over"
        if d.find_element(By.ID, "prompt").text.startswith(("your", "bury", "declare")):
            return "turn"
        return False

    while (state := wait.until(my_turn)) != "over":
        legal = d.find_elements(By.CSS_SELECTOR, "#hand .card.legal")
        play = d.find_element(By.ID, "play")
        passes = d.find_elements(By.CSS_SELECTOR, "#actions button")
        if play.is_enabled():
            target = play  # a lead of one card: play it
        elif legal:
            target = legal[0]
        else:
            target = next(b for b in passes if b.text == "pass")
        if shot and clicks >= 8 and legal and not Path(shot).exists():
            d.save_screenshot(shot)  # mid-hand, the person to play, legal cards highlighted
        before = d.find_element(By.ID, "hand").get_attribute("innerHTML")
        prompt = d.find_element(By.ID, "prompt").text
        target.click()
        clicks += 1
        wait.until(lambda d, before=before, prompt=prompt:
                   d.find_element(By.ID, "hand").get_attribute("innerHTML") != before
                   or d.find_element(By.ID, "prompt").text != prompt
                   or d.find_element(By.ID, "result").is_displayed())
        assert not d.find_element(By.ID, "error").text, d.find_element(By.ID, "error").text
        assert clicks < 400
    assert state == "over" and clicks > 12
    verdict = d.find_element(By.ID, "verdict").text
    assert verdict.startswith(("Your team wins", "Your team loses")) and "saved as" in verdict
    story = d.find_element(By.ID, "story").text
    assert story.count("Trick ") == 12 and "Hand over" in story
    assert len(list(saved.glob("*.json"))) == 1

    d.find_element(By.ID, "replay-this").click()
    wait.until(lambda d: d.find_element(By.ID, "viewer").is_displayed())
    assert len(d.find_elements(By.CSS_SELECTOR, "#timeline button")) == 12
    d.find_element(By.ID, "w-next").click()
    assert d.find_element(By.ID, "w-pos").text.startswith("move 1 of")
    d.find_elements(By.CSS_SELECTOR, "#timeline button")[2].click()
    assert "Trick 3" in d.find_element(By.ID, "w-events").text
    assert all(d.find_element(By.ID, f"w-hand-{s}").text for s in range(4))  # all four hands
    d.find_element(By.ID, "w-last").click()
    assert "Hand over" in d.find_element(By.ID, "w-events").text
    d.find_element(By.ID, "w-first").click()
    d.find_element(By.ID, "w-anim").click()
    wait.until(lambda d: not d.find_element(By.ID, "w-pos").text.startswith("move 0 "))
