"""The report's stylesheet and script, inlined into every report (no network needed to view it).

Everything is scoped under ``.mf-report`` so that a fragment in a notebook styles only itself.
Colours are CSS variables with a light and a dark set: the dark set applies under
``prefers-color-scheme: dark`` unless the page says ``data-theme="light"``, and always under
``data-theme="dark"``.
"""

from __future__ import annotations

LIGHT = {
    "bg": "#ffffff", "fg": "#1c2230", "muted": "#5d6677", "line": "#d8dde6", "panel": "#f4f6f9",
    "plotbg": "#fbfcfd", "grid": "#e6e9ef", "accent": "#1d5fd6", "good": "#177a3c", "bad": "#b42318",
    "warn": "#a15c07", "info": "#4b5565", "goodbg": "rgba(23,122,60,.07)", "badbg": "rgba(180,35,24,.06)",
    "c0": "#1d5fd6", "c1": "#d9730d", "c2": "#0f8a5f", "c3": "#c2307a", "c4": "#7046d1", "c5": "#0a87a8",
    "c6": "#6b8e00", "c7": "#c9362b",
}
DARK = {
    "bg": "#14171d", "fg": "#e3e7ee", "muted": "#9aa3b2", "line": "#2f3541", "panel": "#1b1f27",
    "plotbg": "#181c23", "grid": "#262b35", "accent": "#6ea2ff", "good": "#4cc27a", "bad": "#ff7a6e",
    "warn": "#f0b44c", "info": "#a5afbf", "goodbg": "rgba(76,194,122,.09)", "badbg": "rgba(255,122,110,.08)",
    "c0": "#6ea2ff", "c1": "#f5a053", "c2": "#3fcf9a", "c3": "#f07ab8", "c4": "#b09bff", "c5": "#4fcbe6",
    "c6": "#b5d65a", "c7": "#ff8a80",
}


def _vars(values: dict[str, str]) -> str:
    return ";".join(f"--mf-{k}:{v}" for k, v in values.items())


CSS = (
    f".mf-report{{{_vars(LIGHT)};color-scheme:light}}"
    f".mf-report[data-theme=dark]{{{_vars(DARK)};color-scheme:dark}}"
    f"@media (prefers-color-scheme: dark){{.mf-report:not([data-theme=light]){{{_vars(DARK)};color-scheme:dark}}}}"
    + """
.mf-report{color:var(--mf-fg);background:var(--mf-bg);
 font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;
 -webkit-text-size-adjust:100%;text-size-adjust:100%}
html.mf-report,html.mf-report body{margin:0;background:var(--mf-bg)}
.mf-report *{box-sizing:border-box}
.mf-report .mf-wrap{max-width:1120px;margin:0 auto;padding:16px 20px 40px}
.mf-report header.mf-head{display:flex;gap:12px;align-items:center;justify-content:space-between;flex-wrap:wrap;
 border-bottom:1px solid var(--mf-line);padding-bottom:8px;margin-bottom:12px}
.mf-report h1{font-size:1.5em;margin:.2em 0}
.mf-report h2{font-size:1.25em;margin:1.2em 0 .5em;padding-top:.3em;border-top:1px solid var(--mf-line)}
.mf-report h3{font-size:1.02em;margin:1em 0 .4em}
.mf-report a{color:var(--mf-accent)}
.mf-report code{font:0.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.mf-report .mf-kind{font-size:.72em;text-transform:uppercase;letter-spacing:.06em;color:var(--mf-muted);
 border:1px solid var(--mf-line);border-radius:4px;padding:1px 6px;vertical-align:middle}
.mf-report .mf-muted{color:var(--mf-muted)}
.mf-report .mf-good{color:var(--mf-good)} .mf-report .mf-bad{color:var(--mf-bad)}
.mf-report .mf-warning{color:var(--mf-warn)} .mf-report .mf-neutral{color:var(--mf-info)}
.mf-report nav.mf-toc ol{margin:.2em 0;padding-left:1.4em;columns:2 18em}
.mf-report button.mf-theme{font:inherit;color:var(--mf-fg);background:var(--mf-panel);border:1px solid var(--mf-line);
 border-radius:6px;padding:4px 10px;cursor:pointer;min-height:32px}
.mf-report dl.mf-kv{display:grid;grid-template-columns:minmax(8em,max-content) 1fr;gap:2px 14px;margin:.6em 0;
 background:var(--mf-panel);border:1px solid var(--mf-line);border-radius:6px;padding:8px 12px}
.mf-report dl.mf-kv dt{color:var(--mf-muted)} .mf-report dl.mf-kv dd{margin:0;overflow-wrap:anywhere}
.mf-report .mf-scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:.5em 0;border:1px solid var(--mf-line);
 border-radius:6px}
.mf-report table.mf-table{border-collapse:collapse;width:100%;font-size:.9em;font-variant-numeric:tabular-nums}
.mf-report table.mf-table th,.mf-report table.mf-table td{padding:4px 8px;border-bottom:1px solid var(--mf-line);
 text-align:left;vertical-align:top;white-space:nowrap}
.mf-report table.mf-table td.mf-long{white-space:normal;overflow-wrap:anywhere;min-width:14em;max-width:36em}
.mf-report table.mf-table .mf-num{text-align:right}
.mf-report table.mf-table thead th{background:var(--mf-panel);position:sticky;top:0;user-select:none}
.mf-report th[data-sort]{cursor:pointer}
.mf-report th[data-sort]::after{content:" \\2195";color:var(--mf-muted);font-size:.85em}
.mf-report th[aria-sort=ascending]::after{content:" \\25B2";color:var(--mf-accent)}
.mf-report th[aria-sort=descending]::after{content:" \\25BC";color:var(--mf-accent)}
.mf-report tr.mf-step td{background:var(--mf-badbg)} .mf-report tr.mf-failed td{color:var(--mf-bad)}
.mf-report .mf-controls{display:flex;flex-wrap:wrap;gap:6px 10px;align-items:center;margin:.4em 0}
.mf-report .mf-controls input,.mf-report .mf-controls select{font:inherit;color:var(--mf-fg);background:var(--mf-bg);
 border:1px solid var(--mf-line);border-radius:6px;padding:4px 8px;min-height:32px;max-width:100%}
.mf-report .mf-count{color:var(--mf-muted);font-size:.85em}
.mf-report figure.mf-figure{margin:.8em 0;max-width:100%}
.mf-report figure.mf-figure figcaption{color:var(--mf-muted);font-size:.85em}
.mf-report svg.mf-plot{display:block;max-width:100%;height:auto;font-size:11px}
.mf-report .mf-grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:8px 16px}
.mf-report svg .mf-plotbg{fill:var(--mf-plotbg)}
.mf-report svg .mf-grid{stroke:var(--mf-grid);stroke-width:1}
.mf-report svg .mf-axis{stroke:var(--mf-muted);fill:none;stroke-width:1}
.mf-report svg text{fill:var(--mf-fg)}
.mf-report svg .mf-tick{fill:var(--mf-muted)}
.mf-report svg .mf-axlabel{fill:var(--mf-muted);font-size:12px}
.mf-report svg .mf-plottitle{font-weight:600;font-size:13px}
.mf-report svg .mf-legend{font-size:11px}
.mf-report svg .mf-note{font-size:10.5px}
.mf-report svg .mf-line{fill:none;stroke-width:2}
.mf-report svg .mf-err{fill:none;stroke-width:1.6}
.mf-report svg .mf-ref{stroke-width:1.3}
.mf-report svg .mf-band.mf-faster{fill:var(--mf-goodbg)} .mf-report svg .mf-band.mf-slower{fill:var(--mf-badbg)}
.mf-report svg .mf-ciband{fill:var(--mf-c1);opacity:.16}
.mf-report svg .mf-roof{stroke:var(--mf-fg);fill:var(--mf-fg)}
.mf-report svg .mf-baseline{stroke:var(--mf-fg);fill:var(--mf-fg)}
.mf-report svg .mf-aside{fill:none;stroke:var(--mf-bad);stroke-width:1.2}
.mf-report svg .mf-good{stroke:var(--mf-good);fill:var(--mf-good)}
.mf-report svg .mf-bad{stroke:var(--mf-bad);fill:var(--mf-bad)}
.mf-report svg .mf-neutral{stroke:var(--mf-info);fill:var(--mf-info)}
.mf-report svg text.mf-note,.mf-report svg text.mf-verdict{stroke:none}
.mf-report svg .mf-verdict{font-size:12px;font-weight:600}
.mf-report svg .mf-dot{stroke:var(--mf-bg);stroke-width:1}
.mf-report svg a .mf-dot{cursor:pointer}
.mf-report svg .mf-bar{stroke:none}
"""
    + "".join(f".mf-report svg .mf-s{i}{{stroke:var(--mf-c{i});fill:var(--mf-c{i})}}"
              f".mf-report svg .mf-line.mf-s{i},.mf-report svg .mf-err.mf-s{i},.mf-report svg .mf-ref.mf-s{i}"
              f"{{fill:none}}" for i in range(8))
    + """
.mf-report svg .mf-line.mf-roof,.mf-report svg .mf-ref.mf-roof,.mf-report svg .mf-ref.mf-baseline,
.mf-report svg .mf-err.mf-good,.mf-report svg .mf-err.mf-bad,.mf-report svg .mf-err.mf-neutral,
.mf-report svg .mf-ref.mf-good,.mf-report svg .mf-ref.mf-bad{fill:none}
.mf-report svg text.mf-s0,.mf-report svg text.mf-s1,.mf-report svg text.mf-s2,.mf-report svg text.mf-s3,
.mf-report svg text.mf-s4,.mf-report svg text.mf-s5,.mf-report svg text.mf-s6,.mf-report svg text.mf-s7,
.mf-report svg text.mf-roof,.mf-report svg text.mf-baseline,.mf-report svg text.mf-good,.mf-report svg text.mf-bad{stroke:none}
.mf-report .mf-badge{display:inline-block;font-size:.78em;border-radius:10px;padding:0 8px;border:1px solid currentColor}
.mf-report .mf-badge.mf-error,.mf-report .mf-badge.mf-bad{color:var(--mf-bad)}
.mf-report .mf-badge.mf-warning{color:var(--mf-warn)} .mf-report .mf-badge.mf-info{color:var(--mf-info)}
.mf-report .mf-badge.mf-good{color:var(--mf-good)}
.mf-report ul.mf-findings{list-style:none;padding:0;margin:.4em 0}
.mf-report li.mf-finding{border-left:3px solid var(--mf-line);padding:4px 10px;margin:6px 0;background:var(--mf-panel);
 border-radius:0 6px 6px 0}
.mf-report li.mf-finding.mf-f-error{border-left-color:var(--mf-bad)}
.mf-report li.mf-finding.mf-f-warning{border-left-color:var(--mf-warn)}
.mf-report li.mf-finding.mf-f-info{border-left-color:var(--mf-info)}
.mf-report .mf-evidence{color:var(--mf-muted);font-size:.92em;overflow-wrap:anywhere}
.mf-report .mf-fix,.mf-report .mf-why{font-size:.95em;overflow-wrap:anywhere}
.mf-report ul.mf-verdicts{padding-left:1.2em} .mf-report ul.mf-verdicts li{margin:.2em 0}
.mf-report .mf-verdict{font-weight:600}
.mf-report details.mf-run,.mf-report details.mf-more{border:1px solid var(--mf-line);border-radius:6px;padding:4px 10px;
 margin:4px 0}
.mf-report details.mf-run:target{border-color:var(--mf-accent)}
.mf-report details summary{cursor:pointer}
.mf-report footer{margin-top:2em;color:var(--mf-muted);font-size:.85em;border-top:1px solid var(--mf-line);padding-top:8px}
@media (max-width: 640px){
 .mf-report{font-size:14px}
 .mf-report .mf-wrap{padding:10px 10px 30px}
 .mf-report h1{font-size:1.25em}
 .mf-report dl.mf-kv{grid-template-columns:1fr}
 .mf-report dl.mf-kv dt{margin-top:4px}
 .mf-report nav.mf-toc ol{columns:1}
}
@media print{.mf-report button.mf-theme,.mf-report .mf-controls{display:none}}
"""
)

#: Sorting, filtering, the theme toggle, and opening a linked run. Event delegation on the document,
#: installed once however many reports or fragments a page holds. ``window.mfReport`` is a hook for
#: tests and for people: ``mfReport.sort(th)``.
JS = r"""
(function(){
if(window.mfReport){return;}
var THEMES=["auto","light","dark"];
function num(td){var v=td&&td.getAttribute("data-v");return v===null||v===""?null:parseFloat(v);}
function sortBy(th){
 var table=th.closest("table"),body=table.tBodies[0],col=th.cellIndex,isNum=th.getAttribute("data-sort")==="num";
 var cur=th.getAttribute("aria-sort"),dir=cur==="descending"?"ascending":cur==="ascending"?"descending":(isNum?"descending":"ascending");
 var rows=Array.prototype.slice.call(body.rows),sign=dir==="ascending"?1:-1;
 rows.sort(function(a,b){
  var x=a.cells[col],y=b.cells[col];
  if(isNum){var p=num(x),q=num(y);if(p===null&&q===null){return 0;}if(p===null){return 1;}if(q===null){return -1;}return sign*(p-q);}
  return sign*(x?x.textContent:"").localeCompare(y?y.textContent:"");
 });
 rows.forEach(function(r){body.appendChild(r);});
 Array.prototype.forEach.call(th.parentNode.cells,function(c){if(c.hasAttribute("data-sort")){c.setAttribute("aria-sort","none");}});
 th.setAttribute("aria-sort",dir);
 return dir;
}
function applyFilter(tableId){
 var table=document.getElementById(tableId);if(!table){return;}
 var box=document.querySelector('input[data-filter="'+tableId+'"]'),sel=document.querySelector('select[data-view-for="'+tableId+'"]');
 var q=box?box.value.trim().toLowerCase():"",view=sel?sel.value:null,shown=0,total=0;
 Array.prototype.forEach.call(table.tBodies[0].rows,function(r){
  var inView=!view||!r.hasAttribute("data-view")||r.getAttribute("data-view")===view;
  if(inView){total++;}
  var ok=inView&&(!q||r.textContent.toLowerCase().indexOf(q)>=0);
  if(ok){r.removeAttribute("hidden");shown++;}else{r.setAttribute("hidden","");}
 });
 var count=document.querySelector('[data-count-for="'+tableId+'"]');
 if(count){count.textContent=shown+" / "+total;}
}
function setTheme(root,theme){
 root.setAttribute("data-theme",theme);
 var b=root.querySelector("button.mf-theme");
 if(b){b.setAttribute("data-state",theme);var l=b.getAttribute("data-label-"+theme);if(l){b.textContent=l;}}
 try{localStorage.setItem("mf-theme",theme);}catch(e){}
}
function openTarget(hash){
 var id=decodeURIComponent((hash||location.hash||"").slice(1));if(!id){return;}
 var el=document.getElementById(id);if(el&&el.tagName==="DETAILS"){el.open=true;}
}
document.addEventListener("click",function(e){
 var t=e.target;if(!t||!t.closest){return;}
 var th=t.closest("th[data-sort]");if(th){sortBy(th);return;}
 var a=t.closest("a[href^='#']");if(a){openTarget(a.getAttribute("href"));}
 var b=t.closest("button.mf-theme");
 if(b){var root=b.closest(".mf-report"),cur=root.getAttribute("data-theme")||"auto";
  setTheme(root,THEMES[(THEMES.indexOf(cur)+1)%THEMES.length]);return;}
});
document.addEventListener("keydown",function(e){
 var t=e.target;if(t&&t.matches&&t.matches("th[data-sort]")&&(e.key==="Enter"||e.key===" ")){e.preventDefault();sortBy(t);}
});
document.addEventListener("input",function(e){var t=e.target;if(t&&t.getAttribute&&t.getAttribute("data-filter")){applyFilter(t.getAttribute("data-filter"));}});
document.addEventListener("change",function(e){var t=e.target;if(t&&t.getAttribute&&t.getAttribute("data-view-for")){applyFilter(t.getAttribute("data-view-for"));}});
window.addEventListener("hashchange",function(){openTarget();});
function init(){
 var root=document.documentElement;
 if(root.classList.contains("mf-report")&&root.getAttribute("data-theme-fixed")!=="1"){
  try{var saved=localStorage.getItem("mf-theme");if(saved&&THEMES.indexOf(saved)>=0){setTheme(root,saved);}}catch(e){}
 }
 Array.prototype.forEach.call(document.querySelectorAll("input[data-filter]"),function(i){applyFilter(i.getAttribute("data-filter"));});
 openTarget();
 window.mfReport.ready=true;
}
window.mfReport={sort:sortBy,filter:applyFilter,theme:setTheme,ready:false};
if(document.readyState==="loading"){document.addEventListener("DOMContentLoaded",init);}else{init();}
})();
"""
