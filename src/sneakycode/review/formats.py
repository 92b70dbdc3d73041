"""A review's findings as a person reads them (text), as the published JSON, as GitHub workflow commands
(annotations) and as SARIF 2.1.0 (code scanning). Each renderer returns the text to print; nothing here prints.

Every GitHub line is one workflow command whose text is escaped by GitHub's rules (`%`, CR and LF in the
message; also `:` and `,` in a property; sneakycode/workflow_commands.py), so nothing the model wrote can end
a line and start a command of its own (`::add-mask::`, `::stop-commands::`) in the job's log. The JSON and
SARIF write a `##[` inside a string with a JSON escape (same value, no command); the text format is made
inert where it is printed (faces/shared/text.py `loggable`).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from sneakycode.review.findings import Finding, count_by_severity, findings_schema
from sneakycode.review.runner import Review
from sneakycode.version import __version__
from sneakycode.workflow_commands import command, inert_json

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_RULE = "sneakycode-review"
GITHUB_LEVELS = {"error": "error", "warning": "warning", "note": "notice"}
SARIF_LEVELS = {"error": "error", "warning": "warning", "note": "note"}


def as_document(review: Review) -> dict[str, Any]:
    """The findings object of the published schema (findings.schema.json), validated against it."""
    import jsonschema

    document = {"summary": review.summary, "findings": review.findings}
    jsonschema.Draft202012Validator(findings_schema()).validate(document)
    return document


def render_json(review: Review) -> str:
    return inert_json(json.dumps(as_document(review), ensure_ascii=False, indent=2)) + "\n"


def render_text(review: Review, fail_on: str) -> str:
    lines = [review.summary.strip(), ""]
    for finding in review.findings:
        lines.append(f"{_place(finding)}: {finding['severity']}: {finding['title']}")
        lines += _indented(finding["body"].strip(), "    ")
        if finding.get("suggestion"):
            lines.append("    suggestion:")
            lines += _indented(finding["suggestion"], "        ")
        lines.append("")
    lines += [f"note: {note}" for note in review.notes]
    counted = count_by_severity(review.findings)
    listed = ", ".join(f"{n} {severity}{'s' if n != 1 else ''}" for severity, n in counted.items() if n)
    total = len(review.findings)
    lines.append(f"{total} finding{'s' if total != 1 else ''}{': ' + listed if listed else ''} "
                 f"(--fail-on {fail_on}).")
    return "\n".join(lines) + "\n"


def render_github(review: Review) -> str:
    """Workflow commands: the summary and each note as a notice, each finding as an annotation on its lines."""
    lines = [command("notice", review.summary, {"title": "SneakyCode review"})]
    lines += [command("notice", note, {"title": "SneakyCode review"}) for note in review.notes]
    for finding in review.findings:
        properties = {"file": finding["path"], "line": str(finding["line"])}
        if "end_line" in finding:
            properties["endLine"] = str(finding["end_line"])
        properties["title"] = finding["title"]
        message = finding["body"].strip()
        if finding.get("suggestion"):
            message += f"\n\nSuggested change:\n{finding['suggestion']}"
        lines.append(command(GITHUB_LEVELS[finding["severity"]], message, properties))
    return "\n".join(lines) + "\n"


def render_sarif(review: Review) -> str:
    return inert_json(json.dumps(sarif_log(review), ensure_ascii=False, indent=2)) + "\n"


def sarif_log(review: Review) -> dict[str, Any]:
    """One SARIF 2.1.0 log with one run: a result per finding (level by severity), its suggestion as a fix."""
    rule = {
        "id": SARIF_RULE,
        "name": "ChangeReview",
        "shortDescription": {"text": "A problem SneakyCode's model found in a reviewed change."},
        "fullDescription": {"text": "Found by `sneakycode review`: a model read the diff and the code around it "
                                    "and reported a problem the change brings."},
        "defaultConfiguration": {"level": "warning"},
    }
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "SneakyCode", "semanticVersion": __version__, "rules": [rule]}},
        "results": [_result(finding) for finding in review.findings],
        "invocations": [{
            "executionSuccessful": True,
            "toolExecutionNotifications": [{"level": "warning", "message": {"text": note}} for note in review.notes],
        }],
        "properties": {"summary": review.summary},
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _result(finding: Finding) -> dict[str, Any]:
    region = {"startLine": finding["line"], "endLine": finding.get("end_line", finding["line"])}
    location = {"artifactLocation": {"uri": quote(finding["path"]), "uriBaseId": "%SRCROOT%"}, "region": region}
    result: dict[str, Any] = {
        "ruleId": SARIF_RULE,
        "ruleIndex": 0,
        "level": SARIF_LEVELS[finding["severity"]],
        "message": {"text": f"{finding['title']}\n\n{finding['body'].strip()}".strip()},
        "locations": [{"physicalLocation": location}],
        "properties": {"title": finding["title"], "severity": finding["severity"]},
    }
    if finding.get("suggestion"):
        result["fixes"] = [{
            "description": {"text": f"Suggested change for: {finding['title']}"},
            "artifactChanges": [{
                "artifactLocation": location["artifactLocation"],
                "replacements": [{"deletedRegion": region, "insertedContent": {"text": finding["suggestion"]}}],
            }],
        }]
    return result


def _indented(text: str, indent: str) -> list[str]:
    return [f"{indent}{line}" if line.strip() else "" for line in text.splitlines()]


def _place(finding: Finding) -> str:
    end = finding.get("end_line")
    return f"{finding['path']}:{finding['line']}" + (f"-{end}" if end else "")
