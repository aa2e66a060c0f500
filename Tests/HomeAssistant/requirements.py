"""Prints the pip requirements of Home Assistant integrations and of every integration they load,
read from their manifests, so a venv can hold them before Home Assistant starts with --skip-pip."""
import json
import sys
from pathlib import Path

import homeassistant.components

root = Path(homeassistant.components.__path__[0])
wanted, seen, requirements = list(sys.argv[1:]), set(), set()
while wanted:
    name = wanted.pop()
    if name in seen:
        continue
    seen.add(name)
    manifest = root / name / "manifest.json"
    if not manifest.exists():
        sys.exit(f"requirements.py: no integration called {name} in this Home Assistant")
    data = json.loads(manifest.read_text())
    requirements.update(data.get("requirements", []))
    wanted.extend(data.get("dependencies", []))
    wanted.extend(d for d in data.get("after_dependencies", []) if (root / d / "manifest.json").exists() and d != "hassio")
print(" ".join(sorted(requirements)))
