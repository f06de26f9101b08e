#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Man pages and bash completion of the numaplace command, made from its own --help texts.

The --help texts (CLI11's layout, written in tools/numaplace/*_command.cpp) are the one source:
this script runs the built CLI's `numaplace --help`, `numaplace --version` and
`numaplace COMMAND --help` for every subcommand the first lists, and writes
  OUT/man1/numaplace.1, OUT/man1/numaplace-COMMAND.1   (roff, man(7) macros)
  OUT/bash-completion/numaplace                        (subcommands and each one's options)
Run by the build (cmake/Install.cmake: target numaplace_docs):
  cli_docs.py --cli build/numaplace --out build/docs-generated
The page date is SOURCE_DATE_EPOCH's when set (reproducible builds), else today's.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

SECTION_HEADS = ("Positionals:", "Options:", "Subcommands:")
ENTRY_INDENT = 30  # CLI11 puts an option's description at this column (or on the next line there)


def run(cli, *args):
    out = subprocess.run([cli, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"cli_docs.py: {cli} {' '.join(args)} exited {out.returncode}:\n{out.stdout}")
    return out.stdout


def parse_help(text):
    """CLI11 help -> {description, usage, sections: [(head, [(term, desc)])], footer: [lines]}."""
    lines = text.rstrip("\n").split("\n")
    i = 0
    description = []
    while i < len(lines) and not lines[i].startswith("Usage:"):
        description.append(lines[i])
        i += 1
    if i == len(lines):
        sys.exit("cli_docs.py: no 'Usage:' line in:\n" + text)
    usage = lines[i][len("Usage:"):].strip()
    i += 1
    sections = []
    footer = []
    while i < len(lines):
        line = lines[i]
        if line in SECTION_HEADS:
            entries = []
            i += 1
            while i < len(lines) and lines[i].startswith("  "):
                entry = lines[i]
                described_below = i + 1 < len(lines) and lines[i + 1].startswith(" " * ENTRY_INDENT)
                if not described_below and len(entry) > ENTRY_INDENT and entry[ENTRY_INDENT - 1] == " ":
                    term, desc = entry[:ENTRY_INDENT].strip(), entry[ENTRY_INDENT:].strip()
                else:
                    term, desc = entry.strip(), ""
                # A description on the lines below, at the description column.
                while i + 1 < len(lines) and lines[i + 1].startswith(" " * ENTRY_INDENT):
                    desc = (desc + " " + lines[i + 1].strip()).strip()
                    i += 1
                entries.append((term, desc))
                i += 1
            sections.append((line[:-1], entries))
            continue
        if line.strip() == "" and not footer:
            i += 1
            continue
        footer = lines[i:]
        break
    while footer and footer[-1].strip() == "":
        footer.pop()
    return {"description": [d for d in description if d.strip()], "usage": usage, "sections": sections,
            "footer": footer}


def roff(text):
    """Text -> roff: backslashes and minus signs escaped, no line starting with a control character."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def option_term(term):
    """'-c,--connect TEXT Excludes: --capabilities --hwloc' -> bold names, the rest roman."""
    names, _, rest = term.partition(" ")
    bold = ", ".join("\\fB" + roff(n) + "\\fR" for n in names.split(","))
    return bold + (" " + roff(rest) if rest else "")


def footer_roff(footer):
    """The free text after the options: 'Heading:' lines become sub-headings, indented lines stay as
    they are (examples, key lists), the other lines are joined into paragraphs."""
    out = []
    paragraph = []
    literal = []

    def flush():
        if paragraph:
            out.append(".PP")
            out.append(roff(" ".join(paragraph)))
            paragraph.clear()
        if literal:
            out.append(".PP")
            out.append(".RS 2")
            out.append(".nf")
            out.extend(roff(line[2:] if line.startswith("  ") else line) for line in literal)
            out.append(".fi")
            out.append(".RE")
            literal.clear()

    for line in footer:
        if not line.strip():
            flush()
        elif line.startswith(" "):
            if paragraph:
                flush()
            literal.append(line)
        elif re.fullmatch(r"[A-Z][^:]{0,40}:", line.strip()) or re.fullmatch(r"[A-Z][^:]{0,40} \([^)]*\):", line.strip()):
            flush()
            out.append(".SS " + roff(line.strip()[:-1]))
        else:
            if literal:
                flush()
            paragraph.append(line.strip())
    flush()
    return out


def page(name, summary, version, date, parsed, see_also, commands=None):
    out = [
        f'.\\" Generated by tools/man/cli_docs.py from `{name.replace("-", " ", 1)} --help`; do not edit.',
        f'.TH {roff(name.upper())} 1 "{date}" "numaplace {roff(version)}" "User Commands"',
        ".nh",
        ".ad l",
        ".SH NAME",
        f"{roff(name)} \\- {roff(summary)}",
        ".SH SYNOPSIS",
        ".B " + roff(parsed["usage"].split(" ")[0]),
        roff(" ".join(parsed["usage"].split(" ")[1:])),
        ".SH DESCRIPTION",
        roff(" ".join(line.strip() for line in parsed["description"])),
    ]
    for head, entries in parsed["sections"]:
        if head == "Subcommands":
            out.append(".SH COMMANDS")
            for term, desc in entries:
                out += [".TP", f"\\fB{roff(term)}\\fR", roff(desc) + f"; see \\%\\fBnumaplace\\-{roff(term)}\\fR(1)."]
            continue
        out.append(".SH " + ("ARGUMENTS" if head == "Positionals" else "OPTIONS"))
        for term, desc in entries:
            out += [".TP", option_term(term) if term.startswith("-") else "\\fI" + roff(term.split(" ")[0]) + "\\fR"
                    + (" " + roff(" ".join(term.split(" ")[1:])) if " " in term else ""), roff(desc)]
    if parsed["footer"]:
        out.append(".SH DETAILS")
        out += footer_roff(parsed["footer"])
    out.append(".SH EXIT STATUS")
    out.append(roff("0 done; 1 bad input (a named error on standard error); 2 usage or an unreadable file; "
                    "3 the guest does not fit; 4 the host could not be read (or its lock not taken, or libvirt "
                    "or libnuma not available); 5 libvirt refused the domain."))
    out.append(".SH SEE ALSO")
    out.append(", ".join(f"\\%\\fB{roff(other)}\\fR(1)" for other in see_also) + ".")
    out.append("The README and the docs/ pages of the numaplace sources.")
    return "\n".join(out) + "\n"


def completion(commands, options):
    """A bash completion function: subcommand names first, then the chosen one's options; files
    elsewhere (complete -o default)."""
    lines = [
        "# bash completion for numaplace; generated by tools/man/cli_docs.py from numaplace --help.",
        "_numaplace() {",
        '  local cur=${COMP_WORDS[COMP_CWORD]} sub="" i',
        "  for ((i = 1; i < COMP_CWORD; i++)); do",
        '    case ${COMP_WORDS[i]} in',
        f'      {"|".join(commands)}) sub=${{COMP_WORDS[i]}}; break ;;',
        "    esac",
        "  done",
        '  local words=""',
        '  case $sub in',
        f'    "") words="{" ".join(commands)} {" ".join(options[""])}" ;;',
    ]
    for command in commands:
        lines.append(f'    {command}) words="{" ".join(options[command])}" ;;')
    lines += [
        "  esac",
        '  if [ -z "$sub" ] || [[ $cur == -* ]]; then',
        '    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")',
        "  fi",
        "}",
        "complete -o default -F _numaplace numaplace",
    ]
    return "\n".join(lines) + "\n"


def option_names(parsed):
    names = []
    for head, entries in parsed["sections"]:
        if head != "Options":
            continue
        for term, _ in entries:
            names += [n for n in term.split(" ")[0].split(",") if n.startswith("-")]
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch else datetime.datetime.now(
        datetime.timezone.utc)
    date = when.strftime("%Y-%m-%d")
    version_line = run(args.cli, "--version").strip()
    match = re.fullmatch(r"numaplace (\S+)", version_line)
    if not match:
        sys.exit(f"cli_docs.py: '{args.cli} --version' said '{version_line}', not 'numaplace VERSION'")
    version = match.group(1)

    top = parse_help(run(args.cli, "--help"))
    subcommands = [entry for head, entries in top["sections"] if head == "Subcommands" for entry in entries]
    if not subcommands:
        sys.exit("cli_docs.py: numaplace --help lists no subcommands")
    commands = [name for name, _ in subcommands]
    man_dir = os.path.join(args.out, "man1")
    os.makedirs(man_dir, exist_ok=True)
    for stale in os.listdir(man_dir):
        os.remove(os.path.join(man_dir, stale))
    pages = {"numaplace": page("numaplace", top["description"][0].split(":")[0].replace("numaplace ", "", 1)
                               if top["description"] else "place libvirt guests onto NUMA cells",
                               version, date, top, [f"numaplace-{c}" for c in commands])}
    options = {"": option_names(top)}
    for name, summary in subcommands:
        parsed = parse_help(run(args.cli, name, "--help"))
        options[name] = option_names(parsed)
        see_also = ["numaplace"] + [f"numaplace-{c}" for c in commands if c != name]
        pages[f"numaplace-{name}"] = page(f"numaplace-{name}", summary, version, date, parsed, see_also)
    for name, text in pages.items():
        with open(os.path.join(man_dir, name + ".1"), "w", encoding="utf-8") as f:
            f.write(text)
    completion_dir = os.path.join(args.out, "bash-completion")
    os.makedirs(completion_dir, exist_ok=True)
    with open(os.path.join(completion_dir, "numaplace"), "w", encoding="utf-8") as f:
        f.write(completion(commands, options))
    print(f"cli_docs.py: {len(pages)} man pages and the bash completion of numaplace {version} in {args.out}")


if __name__ == "__main__":
    main()
