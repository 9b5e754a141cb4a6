"""The text of Help ▸ Getting started: what each pane of the window is and the first steps.

Plain HTML for a ``QTextBrowser``, kept here so it is read offline and reviewed beside the code.
Keys named here are checked against the window's actions by the tests.
"""

GETTING_STARTED_HTML = """
<h2>Getting started</h2>
<p>vocviewer shows a benchmark's images with their ground truth, evaluates result files the way
the official devkit does, and lets you click from a number to the detections behind it.</p>

<h3>First steps</h3>
<ol>
<li><b>Open a dataset</b>: File ▸ Open dataset folder (<code>Ctrl+O</code>) for a VOCdevkit
year, a VisDrone split or an ILSVRC folder; File ▸ Open annotation file
(<code>Ctrl+Shift+O</code>) for a COCO JSON; or File ▸ Open demo dataset to try everything
without a download. You can also drop folders and files on the window.</li>
<li><b>Add results</b>: File ▸ Add results (<code>Ctrl+R</code>) or Add results folder
(<code>Ctrl+Shift+R</code>). Evaluation starts at once in the background; the AP table and the
curves fill in class by class (<code>Esc</code> cancels; finished classes stay).</li>
<li><b>Click a precision/recall curve</b>: choose a class in the AP table, then click a point of
its curve. The image opens with that detection highlighted, and the <i>Ranks</i> tab lists the
detections ranked around it, the false positive that caused the drop selected.</li>
<li><b>Walk the false positives</b>: <code>]</code> and <code>[</code> step through them in rank
order, <code>Z</code> zooms to the selection, and View ▸ Show draws only true positives, only
false positives or only missed objects.</li>
</ol>

<h3>The panes</h3>
<dl>
<dt><b>Image list</b> (left)</dt>
<dd>The images of the chosen image set and class; search ids (<code>Ctrl+F</code>), and the
<i>Filter</i> menu keeps images with difficult, truncated or crowd objects, with false positives
or missed objects, sorted by errors.</dd>
<dt><b>Image</b> (centre)</dt>
<dd>The current image with ground truth and the detections above the score threshold, coloured
by verdict (the key is in the status bar). Hover a box for its class, score, rank and IoU.
<code>→</code>/<code>←</code> change image; the View menu switches what is drawn.</dd>
<dt><b>Inspector</b> (under the image)</dt>
<dd>Tabs <i>Detections</i> and <i>Objects</i> of this image, <i>Ranks</i> (the detections of the
class in rank order) and <i>Compare</i> (images where two result sets differ), beside a
sentence saying why the selected detection is what it is. <code>Enter</code> on a row opens it.
</dd>
<dt><b>PR curve</b> (top right)</dt>
<dd>Precision/recall of the chosen class for every result set on the same axes; its dots are
coloured by false-positive kind. Right-click to export the figure.</dd>
<dt><b>AP per class, Summary, Confusion</b> (bottom right)</dt>
<dd>One AP column per result set (click a class to choose it); the protocol's summary numbers;
a confusion matrix whose cells list their detections or objects.</dd>
<dt><b>Messages</b> (bottom, <code>Ctrl+M</code>)</dt>
<dd>Warnings and errors about the files read, each naming the file and the line or element.
</dd>
</dl>

<p>Help ▸ Keyboard shortcuts (<code>F1</code> or <code>?</code>) lists every key. The same
evaluation runs without a window: <code>vocviewer eval --help</code>.</p>
"""
