"""`vsr2d.render` and `vsr2d.view` are the command line's render job: each option gives the bytes
`vsr2d render` (or `vsr2d view`) writes with the same option, and bad values or combinations raise
`ValueError` with the command line's message before anything is simulated or written."""

import os
import pathlib
import shutil
import subprocess

import pytest

import vsr2d

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "fixtures" / "scenarios"
WORM, BIPED = SCENARIOS / "worm.json", SCENARIOS / "biped.json"


def binary():
    """The vsr2d command line compared with (scripts/test.sh sets VSR2D_BIN)."""
    path = os.environ.get("VSR2D_BIN") or shutil.which("vsr2d")
    assert path and os.path.exists(path), "set VSR2D_BIN to the vsr2d binary (cargo build) to compare with it"
    return path


def cli_args(kwargs):
    """The command line's options for Python's keyword arguments."""
    args = []
    for key, value in kwargs.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif key == "size":
            args += [flag, f"{value[0]}x{value[1]}"]
        elif key in ("times", "fixed_camera"):
            args += [flag, ",".join(str(v) for v in value)]
        elif isinstance(value, list):
            for item in value:
                args += [flag, str(item)]
        else:
            args += [flag, str(value)]
    return args


def cli(*args):
    return subprocess.run([binary(), *map(str, args)], capture_output=True, text=True)


# Each case: the scenarios, the output's name, and Python's options (the command line gets the same).
# No mp4: the portable wheel's OpenH264 writes different bytes from run to run (and a source build encodes
# with x264); the mp4 sink is the same code as the GIF's but for the encoder.
SHORT = {"duration": 1, "size": (240, 136)}
CASES = {
    "gif": ([WORM], "clip.gif", dict(SHORT, fps=10)),
    "png-at": ([BIPED], "still.png", dict(SHORT, at=0.5)),
    "svg-paper": ([BIPED], "still.svg", dict(SHORT, at=0.5, style="paper")),
    "pdf": ([WORM], "still.pdf", dict(SHORT, at=0.25)),
    "hidden-layers": ([BIPED], "bare.png", dict(SHORT, no_overlay=True, no_key=True, no_grid=True, no_ticks=True)),
    "color-by": ([BIPED], "speed.png", dict(SHORT, color_by="velocity_magnitude", at=0.75)),
    "all-layers": ([BIPED], "layers.png", dict(SHORT, all_layers=True)),
    "fixed-camera": ([WORM], "fixed.png", dict(SHORT, fixed_camera=(-1.0, -0.5, 3.0, 1.75))),
    "layout": ([WORM, BIPED], "two.png", dict(SHORT, layout="2x1", size=(160, 200))),
    "shared-camera": ([WORM, BIPED], "shared.gif", dict(SHORT, shared_camera=True, fps=5)),
    "showcase": (None, "showcase.png", {"duration": 0.5, "size": (320, 180), "at": 0.25}),
    "label-svg": ([WORM], "label.svg", dict(SHORT, at=0.5, label="(a) worm", font_scale=0.75)),
    "labels-font-scale": (
        [WORM, BIPED],
        "labels.png",
        dict(SHORT, layout="2x1", size=(160, 200), label=["(a) worm", "(b) biped"], font_scale=2),
    ),
    "label-paper-pdf": ([BIPED], "label.pdf", dict(SHORT, at=0.25, style="paper", label="(b)", font_scale=1.5)),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_render_gives_the_command_lines_bytes(tmp_path, case):
    scenarios, name, options = CASES[case]
    py, cmd = tmp_path / "py", tmp_path / "cli"
    py.mkdir()
    cmd.mkdir()
    paths = [str(s) for s in scenarios] if scenarios else []
    vsr2d.render(paths or None, py / name, **options)
    flag = "-o" if name.endswith((".mp4", ".gif")) else "--png"
    done = cli("render", *paths, flag, cmd / name, "-q", *cli_args(options))
    assert done.returncode == 0, done.stderr
    assert (py / name).read_bytes() == (cmd / name).read_bytes()


@pytest.mark.parametrize("ext", ["png", "svg", "pdf"])
def test_a_filmstrip_gives_the_command_lines_bytes(tmp_path, ext):
    options = {"duration": 1, "size": (500, 90), "times": [0, 0.5, 1], "no_key": True}
    vsr2d.render(str(WORM), filmstrip=tmp_path / f"py.{ext}", **options)
    done = cli("render", WORM, "--filmstrip", tmp_path / f"cli.{ext}", "-q", *cli_args(options))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / f"py.{ext}").read_bytes() == (tmp_path / f"cli.{ext}").read_bytes()


def record(tmp_path, scenario, seconds=1):
    """A recording of `vsr2d simulate --record` (recordings are named by their path both ways; a
    scenario given to Python is named `scenarios[i]`, which a page shows)."""
    out = tmp_path / f"{scenario.stem}.jsonl"
    done = cli("simulate", scenario, "--duration", seconds, "--record", out)
    assert done.returncode == 0, done.stderr
    return out


def test_frames_a_recording_and_the_html_page_give_the_command_lines_bytes(tmp_path):
    worm = record(tmp_path, WORM)
    for who in ("py", "cli"):
        (tmp_path / who).mkdir()
    options = {"size": (160, 90), "fps": 10, "duration": 0.5}
    runs = vsr2d.render([str(BIPED), str(worm)], frames=tmp_path / "py" / "frames", **options)
    done = cli("render", BIPED, "--from", worm, "--frames", tmp_path / "cli" / "frames", "-q", *cli_args(options))
    assert done.returncode == 0, done.stderr
    frames = sorted(p.name for p in (tmp_path / "cli" / "frames").iterdir())
    assert len(frames) == 6 and frames == sorted(p.name for p in (tmp_path / "py" / "frames").iterdir())
    for frame in frames:
        assert (tmp_path / "py" / "frames" / frame).read_bytes() == (tmp_path / "cli" / "frames" / frame).read_bytes()
    # One simulated scenario (the recording has no metrics), named as Python gave it.
    assert [r["name"] for r in runs] == ["scenarios[0]"]
    # The viewer page beside a still, from the same run.
    vsr2d.render(str(worm), tmp_path / "py" / "end.png", html=tmp_path / "py" / "run.html", **options)
    done = cli(
        "render", "--from", worm, "--png", tmp_path / "cli" / "end.png", "--html", tmp_path / "cli" / "run.html", "-q",
        *cli_args(options),
    )
    assert done.returncode == 0, done.stderr
    for name in ("end.png", "run.html"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name


def test_view_gives_the_command_lines_page(tmp_path):
    runs = [record(tmp_path, WORM), record(tmp_path, BIPED)]
    options = {"size": (320, 180), "fps": 15, "duration": 1, "color_by": "angle", "layout": "1x2"}
    stats = vsr2d.view([str(r) for r in runs], tmp_path / "py.html", title="both", **options)
    done = cli("view", *runs, "-o", tmp_path / "cli.html", "--title", "both", "-q", *cli_args(options))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "py.html").read_bytes() == (tmp_path / "cli.html").read_bytes()
    assert stats["frames"] == 16


# Refused by the command line's own message: Python's options, the command line's arguments, and a
# part of the message.
SAME_MESSAGE = {
    "svg-with-fps": ({"at": 0.5, "fps": 60}, "still.svg", "--fps is a video's frame rate"),
    "bad-duration": ({"duration": 1e7}, "clip.gif", "is invalid: give a number of seconds"),
    "bad-at": ({"at": float("inf")}, "still.png", "--at inf is invalid"),
    "too-long": ({"duration": 100_000, "size": (1280, 720)}, "clip.gif", "pixels × frames"),
    "label-without-overlay": ({"label": "(a) worm", "no_overlay": True}, "still.png", "which --no-overlay leaves out"),
    "label-count": ({"label": ["(a)", "(b)"]}, "still.png", "2 --label given for 1 cell:"),
    "font-scale": ({"font_scale": 5}, "still.svg", "--font-scale 5 is invalid: give a factor from 0.5 to 4"),
}


@pytest.mark.parametrize("case", SAME_MESSAGE, ids=list(SAME_MESSAGE))
def test_bad_values_raise_the_command_lines_message_and_write_nothing(tmp_path, case):
    options, name, needle = SAME_MESSAGE[case]
    with pytest.raises(ValueError, match=needle) as e:
        vsr2d.render(str(WORM), tmp_path / name, **options)
    flag = "-o" if name.endswith((".mp4", ".gif")) else "--png"
    done = cli("render", WORM, flag, tmp_path / name, *cli_args(options))
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: {e.value}"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "options, needle",
    [
        ({}, "nothing to write"),
        ({"out": "still.png", "times": [0, 1]}, "--times are the times of the filmstrip"),
        ({"out": "clip.gif", "filmstrip": "strip.png"}, "a filmstrip is written by a command of its own"),
        ({"out": "clip.gif", "at": 1}, "--at is the time of the still"),
        ({"out": "clip.gif", "html": "clip.gif"}, "both name"),
        ({"out": "still.png", "html": "page.mp4"}, "would be an HTML page named .mp4"),
        ({"out": "still.png", "style": "fancy"}, "unknown style"),
        ({"out": "still.png", "color_by": "colour"}, "unknown sensor"),
        ({"out": "still.png", "fixed_camera": (1, 0, 0, 1)}, "camera rectangle"),
        ({"out": "still.png", "layout": "x"}, "layout"),
        ({"out": "clip.avi"}, "unknown output format"),
        ({"out": "still.png", "top": 2, "archive": "run"}, "one of top, archive and front"),
        ({"out": "still.png", "label": 3}, "label: give a str, or a list of str"),
    ],
)
def test_bad_combinations_are_refused_before_anything_is_written(tmp_path, monkeypatch, options, needle):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=needle):
        vsr2d.render(str(WORM), duration=1, size=(160, 90), **options)
    assert list(tmp_path.iterdir()) == []


def test_top_archive_and_front_give_the_command_lines_bytes(tmp_path):
    runs = {}
    for name in ("map-elites-quick", "nsga2-quick"):
        runs[name] = tmp_path / name
        experiment = ROOT / "fixtures" / "experiments" / f"{name}.json"
        done = cli("evolve", experiment, "-o", runs[name], "--no-media", "--jobs", 2)
        assert done.returncode == 0, done.stderr
    cases = [
        ("top.png", {"top": 2}, [str(runs["nsga2-quick"])], ["--top", 2, runs["nsga2-quick"]]),
        ("archive.png", {"archive": runs["map-elites-quick"]}, None, ["--archive", runs["map-elites-quick"]]),
        (
            "front.svg",
            {"front": runs["nsga2-quick"], "style": "paper"},
            None,
            ["--front", runs["nsga2-quick"], "--style", "paper"],
        ),
    ]
    for name, options, scenarios, args in cases:
        vsr2d.render(scenarios, tmp_path / f"py-{name}", duration=0.5, size=(960, 720), **options)
        done = cli("render", *args, "--png", tmp_path / f"cli-{name}", "--duration", 0.5, "--size", "960x720", "-q")
        assert done.returncode == 0, done.stderr
        assert (tmp_path / f"py-{name}").read_bytes() == (tmp_path / f"cli-{name}").read_bytes(), name
    with pytest.raises(ValueError, match="--archive draws its grid and axes as pixels"):
        vsr2d.render(None, tmp_path / "archive.svg", archive=runs["map-elites-quick"])
