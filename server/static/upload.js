// The upload page: reads the chosen or dropped files (or the pasted text)
// and posts them to the API with the token in the Authorization header only
// (never in a URL or in storage), then lists each game's verdict. After a
// refusal the pasted text stays, the lines the verdicts name are marked
// under it, and each "line:column" selects its place in the text.

const form = document.getElementById("upload");
if (form) {
  form.hidden = false;
  const files = form.querySelector("input[type=file]");
  const drop = document.getElementById("drop");
  const out = document.getElementById("result");
  let dropped = null;

  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    dropped = [...e.dataTransfer.files];
    drop.querySelector("p").textContent = dropped.map((f) => f.name).join(", ");
  });
  files.addEventListener("change", () => { dropped = null; });

  const cell = (tr, text) => {
    const td = document.createElement("td");
    if (text instanceof Node) td.append(text); else td.textContent = text ?? "";
    tr.append(td);
  };

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const chosen = dropped ?? [...files.files];
    const parts = await Promise.all(chosen.map((f) => f.text()));
    const area = form.querySelector("textarea");
    const pasted = area.value;
    // The body line where the pasted text starts (the files come first).
    const pastedFrom = parts.reduce((n, t) => n + t.split("\n").length, 1);
    if (pasted.trim()) parts.push(pasted);
    const body = parts.join("\n");
    out.replaceChildren();
    const say = (text, cls) => {
      const p = document.createElement("p");
      p.textContent = text;
      if (cls) p.className = cls;
      out.append(p);
    };
    if (!body.trim()) { say("Choose a file, drop one here, or paste a record.", "error"); return; }
    const token = form.querySelector("input[name=token]").value.trim();
    const r = await fetch("/api/v1/games", {
      method: "POST",
      headers: { "Authorization": "Bearer " + token, "Content-Type": "application/x-go-sgf" },
      body,
    });
    const answer = await r.json().catch(() => null);
    const refused = !answer || !answer.games || answer.invalid > 0;
    if (!refused) {
      // All taken: the chosen files and the pasted text are cleared (the
      // token stays in its field for the next upload). After a refusal
      // they stay, to be fixed in place.
      dropped = null;
      files.value = "";
      area.value = "";
      drop.querySelector("p").textContent = "Drop .sgf files here";
    }
    if (!answer) { say(`The server answered ${r.status}.`, "error"); return; }
    if (!answer.games) { say(answer.detail || `The server answered ${r.status}.`, "error"); return; }
    say(`${answer.stored} stored, ${answer.duplicates} already in the archive, ${answer.merged ?? 0} merged with a stored game, ${answer.invalid} refused.`);
    // The place of a verdict in the pasted text: its line there (1-based),
    // or null when it is in a file.
    const inPasted = (line) => (pasted.trim() && line >= pastedFrom ? line - pastedFrom + 1 : null);
    const select = (line, column) => {
      const lines = area.value.split("\n");
      let at = 0;
      for (let i = 0; i < line - 1 && i < lines.length; i++) at += lines[i].length + 1;
      const end = at + (lines[line - 1] ?? "").length;
      area.focus();
      area.setSelectionRange(Math.min(at + Math.max(column - 1, 0), end), end);
    };
    const table = document.createElement("table");
    table.innerHTML = "<thead><tr><th>#</th><th>Outcome</th><th>Status</th><th>Why</th><th>Where</th><th>Game</th></tr></thead>";
    const tbody = document.createElement("tbody");
    for (const g of answer.games) {
      const tr = document.createElement("tr");
      tr.className = "verdict";
      cell(tr, String(g.index + 1));
      cell(tr, g.outcome);
      cell(tr, g.status);
      cell(tr, [g.reason, g.message].filter(Boolean).join(": ") + (g.ply ? ` (ply ${g.ply}${g.move ? " " + g.move : ""})` : ""));
      const local = g.line ? inPasted(g.line) : null;
      if (local) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "link";
        b.dataset.line = String(local);
        b.textContent = `line ${local}:${g.column ?? 1}`;
        b.title = "Select this place in the pasted text";
        b.addEventListener("click", () => select(local, g.column ?? 1));
        cell(tr, b);
      } else cell(tr, g.line ? `line ${g.line}:${g.column}` : "");
      if (g.id != null) {
        const a = document.createElement("a");
        a.href = `/games/${g.id}`;
        a.textContent = `game ${g.id}`;
        cell(tr, a);
      } else cell(tr, "");
      tbody.append(tr);
    }
    table.append(tbody);
    out.append(table);
    // The pasted text with the lines the verdicts name marked.
    const marked = new Set(answer.games.map((g) => (g.line ? inPasted(g.line) : null)).filter(Boolean));
    if (marked.size) {
      const pre = document.createElement("pre");
      pre.className = "marked";
      pre.dataset.marked = [...marked].join(" ");
      pasted.split("\n").forEach((text, i) => {
        const row = document.createElement(marked.has(i + 1) ? "mark" : "span");
        row.dataset.line = String(i + 1);
        row.textContent = `${String(i + 1).padStart(4)}  ${text}\n`;
        pre.append(row);
      });
      out.append(pre);
    }
  });
}
