// memoryd web view: small conveniences only; every page works without it.
"use strict";
document.addEventListener("submit", (event) => {
  // forms that forget or remove ask first
  const ask = event.target.getAttribute("data-confirm");
  if (ask && !window.confirm(ask)) event.preventDefault();
});
document.addEventListener("keydown", (event) => {
  // "/" jumps to the search box of the page (or to the Search page)
  if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
  const tag = (document.activeElement && document.activeElement.tagName) || "";
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  const box = document.querySelector('input[type="search"]');
  if (box) { event.preventDefault(); box.focus(); }
});
