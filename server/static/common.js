// Shared by every page: the dark-mode toggle and the player typeahead.
// Pages work without it; it only adds to them.

const root = document.documentElement;
const stored = localStorage.getItem("keil-theme");
if (stored === "dark" || stored === "light") root.dataset.theme = stored;

const toggle = document.getElementById("theme");
if (toggle) {
  toggle.hidden = false;
  const dark = () =>
    root.dataset.theme === "dark" ||
    (!root.dataset.theme && matchMedia("(prefers-color-scheme: dark)").matches);
  const label = () => toggle.setAttribute("aria-pressed", String(dark()));
  label();
  toggle.addEventListener("click", () => {
    root.dataset.theme = dark() ? "light" : "dark";
    localStorage.setItem("keil-theme", root.dataset.theme);
    label();
  });
}

// Typeahead: players whose names match what is typed (the API folds case
// and accents: "bolanos" finds "Bolaños"), as links under the input, each
// with its games, years and ranks (what tells apart the people a name
// answers to: "Shusaku"). With data-typeahead="fill" (a filter form), a
// chosen player fills the input (the name, or "#ID" when the name answers
// to others too) and the page stays; otherwise it opens the player's page.
for (const input of document.querySelectorAll("input[data-typeahead]")) {
  const fill = input.dataset.typeahead === "fill";
  const list = document.createElement("ul");
  list.className = "suggest";
  list.id = input.id + "-suggest";
  list.hidden = true;
  input.setAttribute("aria-controls", list.id);
  input.setAttribute("autocomplete", "off");
  input.insertAdjacentElement("afterend", list);
  let timer = 0;
  let asked = "";
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const q = input.value.trim();
      if (q.length < 2) { list.hidden = true; return; }
      asked = q;
      const r = await fetch("/api/v1/players?limit=8&q=" + encodeURIComponent(q));
      if (!r.ok || asked !== q) return;
      const { players } = await r.json();
      list.replaceChildren(...players.map((p) => {
        const li = document.createElement("li");
        const a = document.createElement("a");
        a.href = "/players/" + encodeURIComponent(p.name);
        const detail = [p.games + (p.games === 1 ? " game" : " games"), p.years, (p.ranks || []).join("\u2013")]
          .filter(Boolean).join(", ");
        a.textContent = p.name + " (" + detail + ")";
        if (fill) {
          a.dataset.fill = p.filter || p.name;
          a.addEventListener("click", (e) => {
            e.preventDefault();
            input.value = a.dataset.fill;
            list.hidden = true;
            input.focus();
          });
        }
        li.append(a);
        return li;
      }));
      list.hidden = players.length === 0;
    }, 120);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" && !list.hidden) {
      e.preventDefault();
      list.querySelector("a")?.focus();
    } else if (e.key === "Escape") {
      list.hidden = true;
    }
  });
  list.addEventListener("keydown", (e) => {
    const items = [...list.querySelectorAll("a")];
    const i = items.indexOf(document.activeElement);
    if (e.key === "ArrowDown") { e.preventDefault(); items[Math.min(i + 1, items.length - 1)]?.focus(); }
    if (e.key === "ArrowUp") { e.preventDefault(); (i <= 0 ? input : items[i - 1]).focus(); }
    if (e.key === "Escape") { list.hidden = true; input.focus(); }
  });
}
