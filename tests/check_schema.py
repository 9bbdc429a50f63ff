#!/usr/bin/env python3
"""Checks problems/schema/problem.schema.json: it is a valid JSON Schema (draft 2020-12), every
problem file in problems/ validates against it, and it refuses a few files the loader refuses
too (so a schema that accepts everything cannot pass).

Usage: check_schema.py [PROBLEMS_DIR]   (default: the problems/ folder of this checkout)
Exit 0 when all hold, 1 when one does not, 77 (CTest's skip) when python3-jsonschema is
missing (Debian: apt-get install python3-jsonschema).
"""
import copy
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed; skipping (apt-get install python3-jsonschema)")
    sys.exit(77)


def errors_of(validator, document):
    return sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))


def where(error):
    return "/".join(str(part) for part in error.absolute_path) or "(top level)"


def main():
    folder = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else (
        pathlib.Path(__file__).resolve().parent.parent / "problems")
    schema = json.loads((folder / "schema" / "problem.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failed = False

    problems = sorted(folder.glob("*.json"))
    if not problems:
        print(f"{folder}: no problem files")
        return 1
    for path in problems:
        problem = json.loads(path.read_text(encoding="utf-8"))
        for error in errors_of(validator, problem):
            print(f"{path.name}: {where(error)}: {error.message}")
            failed = True
        if problem.get("id") != path.stem:
            print(f"{path.name}: id: {problem.get('id')!r} is not the file name")
            failed = True

    # Files the loader refuses, made from the first problem by breaking one thing each.
    base = json.loads(problems[0].read_text(encoding="utf-8"))
    breakages = {
        "missing id": lambda p: p.pop("id"),
        "unknown field": lambda p: p.update(titel="typo"),
        "id with uppercase": lambda p: p.update(id="Bad_Id"),
        "submit holding W_o": lambda p: p.update(submit=["W_q", "W_k", "W_V", "W_o"]),
        "submit naming W_q twice": lambda p: p.update(submit=["W_q", "W_q", "W_k", "W_V"]),
        "tolerance 0": lambda p: p.update(tolerance=0),
        "max_length 0": lambda p: p["strings"].update(max_length=0),
        "max_length 65": lambda p: p["strings"].update(max_length=65),
        "negative seed": lambda p: p["strings"].update(seed=-1),
        "random 10001": lambda p: p["strings"].update(random=10001),
        "empty example": lambda p: p["strings"].update(examples=[""]),
        "nothing tested": lambda p: p["strings"].update(exhaustive_length=0, random=0,
                                                        examples=[]),
        "unknown strings field": lambda p: p["strings"].update(exhaustive_lenght=2),
        "class named by a keyword": lambda p: p["classes"].update(count="a"),
        "entry over 1e6": lambda p: p["reference"].update(W_q=[[1e7, 1]]),
        "empty matrix": lambda p: p["reference"].update(W_q=[]),
        "empty row": lambda p: p["reference"].update(W_q=[[]]),
        "matrix of strings": lambda p: p["reference"].update(W_q=[["1", "1"]]),
        "reference missing a submitted matrix": lambda p: p["reference"].pop("W_k"),
        "matrix both given and submitted": lambda p: p.update(given={"W_V": [[1, 0], [0, 1]]}),
        "matrix neither given nor submitted": lambda p: (
            p.update(submit=["W_q", "W_k"]), p["reference"].pop("W_V")),
        "reference holding a given matrix": lambda p: p.update(
            submit=["W_q", "W_k"], given={"W_V": [[1, 0], [0, 1]]}),
        "mistake named as the library's": lambda p: p.update(mistakes=[
            {"name": "key_too_soft", "expected": "[0, 0]", "message": "m", "hint": "h"}]),
        "mistake name with a capital": lambda p: p.update(mistakes=[
            {"name": "Current", "expected": "[0, 0]", "message": "m", "hint": "h"}]),
        "mistake without a hint": lambda p: p.update(mistakes=[
            {"name": "current", "expected": "[0, 0]", "message": "m"}]),
    }
    for name, breakage in breakages.items():
        broken = copy.deepcopy(base)
        breakage(broken)
        if not errors_of(validator, broken):
            print(f"problem.schema.json accepts a problem with {name}")
            failed = True

    # Examples alone, or random strings alone, are a tested set.
    for name, strings in {"examples only": {"exhaustive_length": 0, "examples": ["ab"]},
                          "random only": {"exhaustive_length": 0, "random": 1}}.items():
        alone = copy.deepcopy(base)
        alone["strings"] = dict(max_length=base["strings"]["max_length"], **strings)
        for error in errors_of(validator, alone):
            print(f"problem.schema.json refuses a problem with {name}: {where(error)}: {error.message}")
            failed = True

    # A mistake the author names, written right, is accepted.
    named = copy.deepcopy(base)
    named["mistakes"] = [{"name": "current_letter", "expected": "[0, 0]", "message": "m",
                          "hint": "h"}]
    for error in errors_of(validator, named):
        print(f"problem.schema.json refuses a problem with a mistake: {where(error)}: {error.message}")
        failed = True

    # And the same head with W_V given, done right, is accepted.
    given = copy.deepcopy(base)
    given["submit"] = ["W_q", "W_k"]
    given["given"] = {"W_V": given["reference"].pop("W_V")}
    for error in errors_of(validator, given):
        print(f"problem.schema.json refuses a problem with W_V given: {where(error)}: {error.message}")
        failed = True

    if not failed:
        print(f"problem.schema.json: valid; {len(problems)} problems validate; "
              f"{len(breakages)} broken variants refused")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
