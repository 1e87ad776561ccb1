// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell code, not templates
// Completion scripts for bash, zsh and fish, generated from the commander tree (tree.ts): nouns,
// verbs, aliases, flags, and the values of flags with fixed choices. Each script tracks where in the
// tree the words typed so far lead (skipping flags and the values of flags that take one).
import { allNodes, type CommandNode, flagsOf, type OptionInfo } from "./tree.js";

export type Shell = "bash" | "zsh" | "fish";
export const SHELLS: Shell[] = ["bash", "zsh", "fish"];

const BIN = "partner-cli";

function globalsOf(root: CommandNode): OptionInfo[] {
  return root.options.filter((o) => o.long !== "--version");
}

/** Options valid at a node: its own plus the program's (commander accepts those anywhere). */
function optionsAt(node: CommandNode, root: CommandNode): OptionInfo[] {
  if (node === root) return node.options;
  const own = new Set(node.options.flatMap(flagsOf));
  return [...node.options, ...globalsOf(root).filter((g) => !flagsOf(g).some((f) => own.has(f)))];
}

interface Transition {
  from: string;
  word: string;
  to: string;
}

function transitions(root: CommandNode): Transition[] {
  const out: Transition[] = [];
  for (const n of allNodes(root)) {
    for (const c of n.children) {
      for (const w of [c.name, ...c.aliases]) out.push({ from: n.id, word: w, to: c.id });
    }
  }
  return out;
}

/** Flags whose next word is a value, per node ("*" for the program's global ones). */
interface ValueFlag {
  node: string;
  flag: string;
  choices: string[] | undefined;
  profile: boolean;
}

/** Stored profile names, from `partner-cli profiles list` (TSV when piped: name is column 2). */
const LIST_PROFILES = `${BIN} profiles list 2>/dev/null | tail -n +2 | cut -f2`;

function valueFlags(root: CommandNode): ValueFlag[] {
  const out: ValueFlag[] = [];
  for (const g of globalsOf(root)) {
    if (g.takesValue)
      for (const f of flagsOf(g))
        out.push({ node: "*", flag: f, choices: g.choices, profile: g.profileValue });
  }
  const globalFlags = new Set(globalsOf(root).flatMap(flagsOf));
  for (const n of allNodes(root)) {
    if (n === root) continue;
    for (const o of n.options) {
      if (!o.takesValue) continue;
      for (const f of flagsOf(o))
        if (!globalFlags.has(f))
          out.push({ node: n.id, flag: f, choices: o.choices, profile: o.profileValue });
    }
  }
  return out;
}

function childWords(n: CommandNode): string[] {
  return n.children.flatMap((c) => [c.name, ...c.aliases]);
}

// ---------------------------------------------------------------- bash

export function bashScript(root: CommandNode): string {
  const vf = valueFlags(root);
  const pat = (node: string, word: string) => (node === "*" ? `*" ${word}"` : `"${node} ${word}"`);
  const skip = vf.map((v) => pat(v.node, v.flag));
  const lines: string[] = [];
  lines.push(`# bash completion for ${BIN}, generated from its command tree by "${BIN} completion bash".`);
  lines.push(`# Load it now:     source <(${BIN} completion bash)`);
  lines.push(`# Or install it:   ${BIN} completion bash > ~/.local/share/bash-completion/completions/${BIN}`);
  lines.push(`_partner_cli_profiles() { ${LIST_PROFILES}; }`);
  lines.push("_partner_cli() {");
  lines.push('  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"');
  lines.push("  local node=root skip=0 i w");
  lines.push("  COMPREPLY=()");
  lines.push("  for ((i = 1; i < COMP_CWORD; i++)); do");
  lines.push('    w="${COMP_WORDS[i]}"');
  lines.push("    if ((skip)); then skip=0; continue; fi");
  if (skip.length) {
    lines.push('    case "$node $w" in');
    for (const p of skip) lines.push(`      ${p}) skip=1; continue ;;`);
    lines.push("    esac");
  }
  lines.push('    case "$w" in -*) continue ;; esac');
  lines.push('    case "$node $w" in');
  for (const t of transitions(root)) lines.push(`      ${pat(t.from, t.word)}) node=${t.to} ;;`);
  lines.push("    esac");
  lines.push("  done");
  lines.push('  case "$node $prev" in');
  for (const v of vf) {
    lines.push(
      v.profile
        ? `    ${pat(v.node, v.flag)}) COMPREPLY=($(compgen -W "$(_partner_cli_profiles)" -- "$cur")); return ;;`
        : v.choices?.length
          ? `    ${pat(v.node, v.flag)}) COMPREPLY=($(compgen -W "${v.choices.join(" ")}" -- "$cur")); return ;;`
          : `    ${pat(v.node, v.flag)}) return ;;`,
    );
  }
  lines.push("  esac");
  lines.push('  if [[ "$cur" == -* ]]; then');
  lines.push("    local opts");
  lines.push('    case "$node" in');
  for (const n of allNodes(root)) {
    lines.push(`      ${n.id}) opts="${optionsAt(n, root).flatMap(flagsOf).join(" ")}" ;;`);
  }
  lines.push("    esac");
  lines.push('    COMPREPLY=($(compgen -W "$opts" -- "$cur"))');
  lines.push("    return");
  lines.push("  fi");
  lines.push('  case "$node" in');
  for (const n of allNodes(root)) {
    if (n.children.length)
      lines.push(`    ${n.id}) COMPREPLY=($(compgen -W "${childWords(n).join(" ")}" -- "$cur")) ;;`);
    else if (n.profileArg)
      lines.push(`    ${n.id}) COMPREPLY=($(compgen -W "$(_partner_cli_profiles)" -- "$cur")) ;;`);
  }
  lines.push("  esac");
  lines.push("}");
  lines.push(`complete -o default -F _partner_cli ${BIN}`);
  return `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------- zsh

/** A zsh single-quoted string. */
function zq(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

/** A _describe entry "name:description" (colons in the name escaped). */
function describeEntry(name: string, description: string): string {
  return zq(`${name.replace(/:/g, "\\:")}:${description}`);
}

export function zshScript(root: CommandNode): string {
  const vf = valueFlags(root);
  const pat = (node: string, word: string) => (node === "*" ? `*" ${word}"` : `"${node} ${word}"`);
  const lines: string[] = [];
  lines.push(`#compdef ${BIN}`);
  lines.push(`# zsh completion for ${BIN}, generated from its command tree by "${BIN} completion zsh".`);
  lines.push(`# Load it now:     source <(${BIN} completion zsh)`);
  lines.push(`# Or install it:   ${BIN} completion zsh > "\${fpath[1]}/_${BIN}"`);
  lines.push("_partner_cli_profiles() {");
  lines.push("  local -a profs");
  lines.push(`  profs=(\${(f)"$(${LIST_PROFILES})"})`);
  lines.push("  compadd -a profs");
  lines.push("}");
  lines.push("_partner_cli() {");
  lines.push("  local node=root skip=0 i w");
  lines.push("  for ((i = 2; i < CURRENT; i++)); do");
  lines.push('    w="${words[i]}"');
  lines.push("    if ((skip)); then skip=0; continue; fi");
  if (vf.length) {
    lines.push('    case "$node $w" in');
    for (const v of vf) lines.push(`      (${pat(v.node, v.flag)}) skip=1; continue ;;`);
    lines.push("    esac");
  }
  lines.push('    [[ "$w" == -* ]] && continue');
  lines.push('    case "$node $w" in');
  for (const t of transitions(root)) lines.push(`      (${pat(t.from, t.word)}) node=${t.to} ;;`);
  lines.push("    esac");
  lines.push("  done");
  lines.push('  local cur="${words[CURRENT]}" prev="${words[CURRENT-1]}"');
  lines.push('  case "$node $prev" in');
  for (const v of vf) {
    lines.push(
      v.profile
        ? `    (${pat(v.node, v.flag)}) _partner_cli_profiles; return ;;`
        : v.choices?.length
          ? `    (${pat(v.node, v.flag)}) compadd -- ${v.choices.join(" ")}; return ;;`
          : `    (${pat(v.node, v.flag)}) _default; return ;;`,
    );
  }
  lines.push("  esac");
  lines.push("  local -a cands");
  lines.push('  if [[ "$cur" == -* ]]; then');
  lines.push('    case "$node" in');
  for (const n of allNodes(root)) {
    const entries = optionsAt(n, root).flatMap((o) => flagsOf(o).map((f) => describeEntry(f, o.description)));
    lines.push(`      (${n.id}) cands=(${entries.join(" ")}) ;;`);
  }
  lines.push("    esac");
  lines.push("    _describe -t options 'option' cands");
  lines.push("    return");
  lines.push("  fi");
  lines.push('  case "$node" in');
  for (const n of allNodes(root)) {
    if (!n.children.length) continue;
    const entries = n.children.flatMap((c) => [
      describeEntry(c.name, c.description),
      ...c.aliases.map((a) => describeEntry(a, `alias of ${c.name}`)),
    ]);
    lines.push(`    (${n.id}) cands=(${entries.join(" ")}) ;;`);
  }
  for (const n of allNodes(root)) {
    if (!n.children.length && n.profileArg) lines.push(`    (${n.id}) _partner_cli_profiles; return ;;`);
  }
  lines.push("    (*) _default; return ;;");
  lines.push("  esac");
  lines.push("  _describe -t commands 'command' cands");
  lines.push("}");
  lines.push('if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then');
  lines.push('  _partner_cli "$@"');
  lines.push("else");
  lines.push(`  compdef _partner_cli ${BIN}`);
  lines.push("fi");
  return `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------- fish

/** A fish single-quoted string. */
function fq(s: string): string {
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

export function fishScript(root: CommandNode): string {
  const vf = valueFlags(root);
  const pat = (node: string, word: string) => fq(node === "*" ? `* ${word}` : `${node} ${word}`);
  const lines: string[] = [];
  lines.push(`# fish completion for ${BIN}, generated from its command tree by "${BIN} completion fish".`);
  lines.push(`# Load it now:     ${BIN} completion fish | source`);
  lines.push(`# Or install it:   ${BIN} completion fish > ~/.config/fish/completions/${BIN}.fish`);
  lines.push("function __partner_cli_profiles");
  lines.push(`    ${LIST_PROFILES}`);
  lines.push("end");
  lines.push("");
  lines.push("function __partner_cli_node");
  lines.push("    set -l tokens (commandline -opc)");
  lines.push("    set -e tokens[1]");
  lines.push("    set -l node root");
  lines.push("    set -l skip 0");
  lines.push("    for w in $tokens");
  lines.push("        if test $skip = 1");
  lines.push("            set skip 0");
  lines.push("            continue");
  lines.push("        end");
  if (vf.length) {
    lines.push('        switch "$node $w"');
    lines.push(`            case ${vf.map((v) => pat(v.node, v.flag)).join(" ")}`);
    lines.push("                set skip 1");
    lines.push("                continue");
    lines.push("        end");
  }
  lines.push("        if string match -q -- '-*' $w");
  lines.push("            continue");
  lines.push("        end");
  lines.push('        switch "$node $w"');
  const byTarget = new Map<string, string[]>();
  for (const t of transitions(root)) {
    byTarget.set(t.to, [...(byTarget.get(t.to) ?? []), pat(t.from, t.word)]);
  }
  for (const [to, pats] of byTarget) {
    lines.push(`            case ${pats.join(" ")}`);
    lines.push(`                set node ${to}`);
  }
  lines.push("        end");
  lines.push("    end");
  lines.push("    echo $node");
  lines.push("end");
  lines.push("");
  const at = (id: string) => `-n ${fq(`test (__partner_cli_node) = ${id}`)}`;
  const optLine = (o: OptionInfo, cond: string) => {
    const parts = [`complete -c ${BIN}`];
    if (cond) parts.push(cond);
    if (o.long) parts.push(`-l ${o.long.replace(/^--/, "")}`);
    if (o.short && /^-[A-Za-z0-9]$/.test(o.short)) parts.push(`-s ${o.short.slice(1)}`);
    if (o.takesValue) {
      if (o.profileValue) parts.push("-x -a '(__partner_cli_profiles)'");
      else parts.push(o.choices?.length ? `-x -a ${fq(o.choices.join(" "))}` : "-r");
    }
    parts.push(`-d ${fq(o.description)}`);
    return parts.join(" ");
  };
  // Global options, anywhere.
  for (const o of root.options) lines.push(optLine(o, o.long === "--version" ? at("root") : ""));
  const globalFlags = new Set(root.options.flatMap(flagsOf));
  for (const n of allNodes(root)) {
    if (n.children.length) {
      lines.push(`complete -c ${BIN} ${at(n.id)} -f`);
      for (const c of n.children) {
        lines.push(`complete -c ${BIN} ${at(n.id)} -f -a ${c.name} -d ${fq(c.description)}`);
        for (const a of c.aliases) {
          lines.push(`complete -c ${BIN} ${at(n.id)} -f -a ${a} -d ${fq(`alias of ${c.name}`)}`);
        }
      }
    }
    if (n === root) continue;
    if (!n.children.length && n.profileArg) {
      lines.push(`complete -c ${BIN} ${at(n.id)} -f -a '(__partner_cli_profiles)'`);
    }
    for (const o of n.options) {
      if (flagsOf(o).some((f) => globalFlags.has(f))) continue;
      lines.push(optLine(o, at(n.id)));
    }
  }
  return `${lines.join("\n")}\n`;
}

export function completionScript(shell: Shell, root: CommandNode): string {
  switch (shell) {
    case "bash":
      return bashScript(root);
    case "zsh":
      return zshScript(root);
    case "fish":
      return fishScript(root);
  }
}
