// The pattern editor in the page, without a request per click. The server
// draws every point of the board as a link (`a[data-at]`) carrying its
// cell (`data-cell`: X O . * x o, or nothing outside the region) and its
// lattice coordinates (`data-col`, `data-row`); this module edits those
// cells in place and writes the pattern into the form's `pattern` field,
// which the Search button sends. Without it every point is a plain link
// that cycles its cell on the server and the page reloads.
//
// Tools: stones in turn (black, white, black, ...; the next colour can be
// switched), the wildcard `*`, empty `.`, erase, and the region: drag
// across the board, or with the region tool tap two corners. A region
// makes its points empty `.` and drops what lies outside it.

const board = document.getElementById("pattern-board");
const form = document.getElementById("pattern-query");
const tools = document.getElementById("pattern-tools");

if (board && form && tools && board.querySelector("a[data-at]")) editor();

function editor() {
  const points = [...board.querySelectorAll("a[data-at]")].map((el) => ({
    el,
    name: el.dataset.at,
    col: Number(el.dataset.col),
    row: Number(el.dataset.row),
  }));
  const at = new Map(points.map((p) => [p.el, p]));
  const field = form.elements.namedItem("pattern");
  let tool = "turn";
  let next = "X";
  let corner = null; // the region tool's first tap
  let rect = null; // the region last chosen: { a, b }, opposite corners
  let drag = null; // { from, to } while a pointer is down

  tools.hidden = false;
  board.classList.add("editing");
  const nextButton = tools.querySelector("[data-next]");
  const show = () => {
    for (const b of tools.querySelectorAll("[data-tool]")) {
      b.setAttribute("aria-pressed", String(b.dataset.tool === tool));
    }
    if (nextButton) {
      nextButton.dataset.next = next;
      nextButton.textContent = next === "X" ? "next: black" : "next: white";
    }
  };
  tools.addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    e.preventDefault();
    if (b.dataset.tool) tool = b.dataset.tool;
    if (b.hasAttribute("data-next")) next = next === "X" ? "O" : "X";
    if (b.hasAttribute("data-clear")) {
      for (const p of points) set(p, "");
      rect = null;
      next = "X";
      write();
    }
    corner = null;
    mark([]);
    show();
  });
  show();

  function set(p, cell) {
    if (cell) p.el.dataset.cell = cell;
    else delete p.el.dataset.cell;
    const label = p.el.querySelector("text");
    if (label) label.textContent = "*xo".includes(cell) && cell ? cell : "";
  }

  // The pattern in the point-list notation, cells grouped by value.
  function write() {
    const groups = new Map();
    for (const p of points) {
      const c = p.el.dataset.cell;
      if (!c) continue;
      if (!groups.has(c)) groups.set(c, []);
      groups.get(c).push(p.name);
    }
    field.value = ["X", "O", ".", "x", "o", "*"]
      .filter((c) => groups.has(c))
      .map((c) => c + ":" + groups.get(c).join(","))
      .join(" ");
    const url = new URL(location.href);
    url.searchParams.set("pattern", field.value);
    url.searchParams.set("edit", "1");
    history.replaceState(null, "", url.pathname + url.search);
  }

  const inside = (p, a, b) =>
    p.col >= Math.min(a.col, b.col) && p.col <= Math.max(a.col, b.col) &&
    p.row >= Math.min(a.row, b.row) && p.row <= Math.max(a.row, b.row);

  // Highlights the points of a region being chosen.
  function mark(list) {
    for (const p of points) p.el.classList.toggle("choosing", list.includes(p));
  }

  function region(a, b) {
    rect = { a, b };
    for (const p of points) {
      if (inside(p, a, b)) {
        if (!p.el.dataset.cell) set(p, ".");
      } else {
        set(p, "");
      }
    }
    write();
  }

  function tap(p) {
    const now = p.el.dataset.cell || "";
    switch (tool) {
      case "turn":
        if (now === "X" || now === "O") {
          // Taken back: empty inside the region, else out of the pattern.
          set(p, rect && inside(p, rect.a, rect.b) ? "." : "");
        } else {
          set(p, next);
          next = next === "X" ? "O" : "X";
        }
        break;
      case "any":
        set(p, now === "*" ? "." : "*");
        break;
      case "empty":
        set(p, ".");
        break;
      case "erase":
        set(p, "");
        break;
      case "region":
        if (corner) {
          region(corner, p);
          corner = null;
          mark([]);
          tool = "turn";
        } else {
          corner = p;
          mark([p]);
        }
        show();
        return;
    }
    show();
    write();
  }

  const pointAt = (e) => {
    const el = document.elementFromPoint(e.clientX, e.clientY);
    const a = el && el.closest && el.closest("#pattern-board a[data-at]");
    return a ? at.get(a) : null;
  };

  board.addEventListener("pointerdown", (e) => {
    const p = pointAt(e);
    if (!p || e.button !== 0) return;
    e.preventDefault();
    drag = { from: p, to: p };
  });
  board.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const p = pointAt(e);
    if (!p || p === drag.to) return;
    drag.to = p;
    mark(points.filter((q) => inside(q, drag.from, p)));
  });
  const end = (e) => {
    if (!drag) return;
    const { from } = drag;
    const to = pointAt(e) || drag.to;
    drag = null;
    if (to === from) {
      tap(from);
    } else {
      mark([]);
      corner = null;
      region(from, to);
    }
  };
  board.addEventListener("pointerup", end);
  board.addEventListener("pointercancel", () => {
    drag = null;
    mark([]);
  });
  // Links: the pointer handlers do the work; the keyboard's Enter (a
  // click with no pointer) taps the focused point.
  board.addEventListener("click", (e) => {
    const a = e.target.closest && e.target.closest("a[data-at]");
    if (!a) return;
    e.preventDefault();
    if (e.detail === 0) tap(at.get(a));
  });
}
