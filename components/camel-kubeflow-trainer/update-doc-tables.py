#!/usr/bin/env python3
"""Rewrites the Options and Message headers tables of the component's adoc from its generated catalog JSON.

Run after changing an option or header (after a build has regenerated the JSON):
    python3 components/camel-kubeflow-trainer/update-doc-tables.py
ComponentDocTest fails the build while the adoc misses an option or header of the JSON.
"""
import json
import pathlib
import re

root = pathlib.Path(__file__).resolve().parent
catalog = json.loads((root / "src/generated/resources/META-INF/io/camelkubeflow/trainer/kubeflow-trainer.json").read_text())
adoc_path = root / "src/main/docs/kubeflow-trainer-component.adoc"


def cell(text):
    return str(text).replace("|", "\\|")


options = "\n".join(
    f"| {name} | {p.get('group', '')} | {cell(p.get('description', ''))} | {cell(p.get('defaultValue', ''))} | {p['type']}"
    for name, p in catalog["properties"].items())
headers = "\n".join(
    f"| {name} | {cell(h.get('description', ''))} | {h['javaType']}" for name, h in catalog["headers"].items())

adoc = adoc_path.read_text()
adoc = re.sub(r"(\| Name \| Group \| Description \| Default \| Type\n).*?(\n\|===)", lambda m: m.group(1) + options + m.group(2),
              adoc, flags=re.S)
adoc = re.sub(r"(\| Name \| Description \| Java type\n).*?(\n\|===)", lambda m: m.group(1) + headers + m.group(2),
              adoc, flags=re.S)
adoc_path.write_text(adoc)
