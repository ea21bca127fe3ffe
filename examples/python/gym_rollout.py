"""A random policy in the Gymnasium environment vsr2d.gym.Locomotion, rendered to a GIF.

Needs gymnasium (pip install gymnasium). Run: python examples/python/gym_rollout.py [OUT.gif]
"""

import json
import pathlib
import sys

import vsr2d
from vsr2d.gym import Locomotion

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main(out="rollout.gif"):
    scenario = json.loads((ROOT / "fixtures" / "scenarios" / "worm.json").read_text())
    scenario["world"]["duration"] = 5.0
    env = Locomotion(scenario, render_mode="rgb_array", width=480, height=270)
    obs, info = env.reset(seed=0)
    env.action_space.seed(0)
    frames, total = [env.render()], 0.0
    while True:
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        total += reward
        if info["step"] % 2 == 0:  # 30 frames per simulated second at dt = 1/60
            frames.append(env.render())
        if terminated or truncated:
            break
    vsr2d.write_video(frames, out, fps=30)
    print(f"{info['step']} steps, {info['t']:.2f} s, reward {total:.3f} m -> {out} ({len(frames)} frames)")


if __name__ == "__main__":
    main(*sys.argv[1:])
