// The upload page: reads the chosen or dropped files (or the pasted text)
// and posts them to the API with the token in the Authorization header only
// (never in a URL or in storage), then lists each game's verdict.

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
    const pasted = form.querySelector("textarea").value.trim();
    if (pasted) parts.push(pasted);
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
    // Sent: the chosen files and the pasted text are cleared (the token
    // stays in its field for the next upload).
    dropped = null;
    files.value = "";
    form.querySelector("textarea").value = "";
    drop.querySelector("p").textContent = "Drop .sgf files here";
    const answer = await r.json().catch(() => null);
    if (!answer) { say(`The server answered ${r.status}.`, "error"); return; }
    if (!answer.games) { say(answer.detail || `The server answered ${r.status}.`, "error"); return; }
    say(`${answer.stored} stored, ${answer.duplicates} already in the archive, ${answer.invalid} refused.`);
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
      cell(tr, g.line ? `line ${g.line}:${g.column}` : "");
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
  });
}
