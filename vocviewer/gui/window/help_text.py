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
<li><b>Open a dataset</b>: File ▸ Open dataset folder (<b>Ctrl+O</b>) for a VOCdevkit
year, a VisDrone split or an ILSVRC folder; File ▸ Open annotation file
(<b>Ctrl+Shift+O</b>) for a COCO JSON; or File ▸ Open demo dataset to try everything
without a download. You can also drop folders and files on the window.</li>
<li><b>Add results</b>: File ▸ Add results (<b>Ctrl+R</b>) or Add results folder
(<b>Ctrl+Shift+R</b>). Evaluation starts at once in the background; the AP table and the
curves fill in class by class (<b>Esc</b> cancels; finished classes stay).</li>
<li><b>Click a precision/recall curve</b>: choose a class in the AP table, then click a point of
its curve. The image opens with that detection highlighted, and the <i>Ranks</i> tab lists the
detections ranked around it, the false positive that caused the drop selected.</li>
<li><b>Walk the false positives</b>: <b>]</b> and <b>[</b> step through them in rank
order, <b>Z</b> zooms to the selection, and View ▸ Show draws only true positives, only
false positives or only missed objects.</li>
</ol>

<h3>The panes</h3>
<dl>
<dt><b>Image list</b> (left)</dt>
<dd>The images of the chosen image set and class; search ids (<b>Ctrl+F</b>), and the
<i>Filter</i> menu keeps images with difficult, truncated or crowd objects, with false positives
or missed objects, sorted by errors.</dd>
<dt><b>Image</b> (centre)</dt>
<dd>The current image with ground truth and the detections above the score threshold, coloured
by verdict, each verdict with its own line style and glyph (the key is in the status bar;
View ▸ Palette: colour-blind safe, classic or high contrast). Hover a box for its class, score,
rank and IoU.
<b>→</b>/<b>←</b> change image; the View menu switches what is drawn.</dd>
<dt><b>Thumbnail grid</b> (in place of the image, <b>Ctrl+G</b>)</dt>
<dd>The listed images as thumbnails with their boxes and error counts; a click or <b>Enter</b>
opens one. View ▸ Theme chooses the system's, light or dark colours.</dd>
<dt><b>Inspector</b> (under the image)</dt>
<dd>Tabs <i>Detections</i> and <i>Objects</i> of this image, <i>Ranks</i> (the detections of the
class in rank order) and <i>Compare</i> (images where two result sets differ), beside a
sentence saying why the selected detection is what it is. <b>Enter</b> on a row opens it.
</dd>
<dt><b>PR curve</b> (top right)</dt>
<dd>Precision/recall of the chosen class for every result set on the same axes; its dots are
coloured and shaped by false-positive kind. With all classes, point at a curve for its name and
click it to open the class. Right-click to export the figure.</dd>
<dt><b>AP per class, Summary, Confusion</b> (bottom right)</dt>
<dd>One AP column per result set (click a class to choose it); the protocol's summary numbers;
a confusion matrix whose cells list their detections or objects.</dd>
<dt><b>Messages</b> (bottom, <b>Ctrl+M</b>)</dt>
<dd>Warnings and errors about the files read, each naming the file and the line or element.
</dd>
</dl>

<p>Help ▸ Keyboard shortcuts (<b>F1</b> or <b>?</b>) lists every key.</p>
<p>The same evaluation runs without a window: <code>vocviewer&nbsp;eval&nbsp;--help</code>.</p>
"""
