"""The text of Help ▸ Getting started: the first steps, each pane, and each menu of the window.

Plain HTML for a ``QTextBrowser``, kept here so it is read offline and reviewed beside the code.
The tests check it against the window: every key named here is a real action's, and every menu,
menu action, pane and tab of the window is named here (``help_dialogs.not_in_getting_started``);
a new action fails the test until it is described. The kinds of dataset each Open action takes
come from the registry (``getting_started_html``), never from a list of families here.
"""

GETTING_STARTED_HTML = """
<h2>Getting started</h2>
<p>vocviewer shows a benchmark's images with their ground truth, evaluates result files the way
the official devkit does, and lets you click from a number to the detections behind it.</p>

<h3>First steps</h3>
<ol>
<li><b>Open a dataset</b>: File ▸ Open dataset folder (<b>Ctrl+O</b>) for DATASET_FOLDERS;
File ▸ Open annotation file (<b>Ctrl+Shift+O</b>) for ANNOTATION_FILES; or File ▸ Open demo dataset to try everything
without a download (its detections and its segmentation results, as two result sets). You can
also drop folders and files on the window.</li>
<li><b>Add results</b>: File ▸ Add results (<b>Ctrl+R</b>) or Add results folder
(<b>Ctrl+Shift+R</b>); each is one result set. Evaluation starts at once in the background;
the AP table and the curves fill in class by class (View ▸ Cancel evaluation, <b>Esc</b>,
stops it; finished classes stay).</li>
<li><b>Click a precision/recall curve</b>: choose a class in the AP table, then click a point of
its curve. The image opens with that detection highlighted, and the <i>Ranks</i> tab lists the
detections ranked around it, the false positive that caused the drop selected.</li>
<li><b>Walk the detections</b>: <b>.</b> and <b>,</b> step through the detections of the class
in rank order as viewdet does, <b>W</b> cycles what the walk visits (every detection, only true
positives, only false positives of a kind, missed objects); <b>]</b> and <b>[</b> jump to the
next or previous false positive, <b>Z</b> zooms to the selection.</li>
<li><b>See what the errors cost</b>: the <i>Analysis</i> tab (bottom right) shows TIDE's
error costs, analyze()'s curves, AP by object size and shape, and the bootstrap.</li>
<li><b>Keep your place</b>: File ▸ Save session (<b>Ctrl+S</b>) writes the dataset, its result
sets and the view to a file; File ▸ Open session brings it all back.</li>
</ol>

<h3>The panes</h3>
<dl>
<dt><b>Toolbar</b> (top)</dt>
<dd>Open, Add results, the <i>Results</i> set drawn and tabulated, the <i>Score</i> threshold
for drawn detections (with per-class thresholds from View ▸ Load per-class thresholds…, an
offset added to each class's threshold: <i>Per-class +</i>), the drawing toggles and Show choice, Fit and 1:1, the IoU (and area)
the evaluation uses, and the segmentation overlay with its opacity. In a narrow window the
zoom, IoU and overlay controls wrap onto a second row; narrower still, a toolbar's last widgets
are behind its <b>»</b> button.</dd>
<dt><b>Image list</b> (left)</dt>
<dd>The images of the chosen image set and class; search ids (<b>Ctrl+F</b>), and the
<i>Filter</i> menu keeps images with difficult, truncated or crowd objects, with false positives
or missed objects, sorted by errors or by score; Filter ▸ Saved views applies a saved view.</dd>
<dt><b>Filter panel</b> (docked left, View ▸ Filter panel, <b>Ctrl+Shift+F</b>)</dt>
<dd>Narrow what the list, the grid, the image and the walk show: a score range, classes,
verdicts and false-positive kinds, box area and aspect, object flags, tags, and the result set
judged; it says how many images, objects and detections are kept. <i>Save…</i> names the
filter as a view, kept in the session and in Open Recent.</dd>
<dt><b>Image</b> (centre)</dt>
<dd>The current image with ground truth and the detections above the score threshold, coloured
by verdict, each verdict with its own line style and glyph (the key is in the status bar).
Hover a box for its class, score, rank and IoU. <b>→</b>/<b>←</b> change image; right-click to
export it.</dd>
<dt><b>Thumbnail grid</b> (in place of the image, View ▸ Thumbnail grid, <b>Ctrl+G</b>)</dt>
<dd>The listed images as thumbnails with their boxes and error counts (a flag on tagged images);
a click or <b>Enter</b> opens one, <b>PgDn</b>/<b>PgUp</b> move a page, <b>Ctrl+=</b>/<b>Ctrl+-</b>
make the thumbnails larger or smaller.</dd>
<dt><b>Patches</b> (in place of the image, View ▸ Patches, <b>Ctrl+Shift+G</b>)</dt>
<dd>Crops of the detections of a verdict (TP, each kind of false positive), of the missed objects
or of the objects of a class, each with its verdict, score, IoU and tags, sorted by score, IoU,
class or image (the toolbar above chooses). Double-click or <b>Enter</b> opens the image with the
box selected; select several and <b>Alt+1</b> … <b>Alt+5</b> tag them all.</dd>
<dt><b>Inspector</b> (under the image)</dt>
<dd>Tabs <i>Detections</i> and <i>Objects</i> of this image, <i>Ranks</i> (the detections of the
class in rank order), <i>Compare</i> (images where two result sets differ) and <i>Suspects</i>
(the label-error queue: likely missing annotations, wrong labels, loose boxes and duplicate
ground truth, strongest first, each with the evidence of every result set; while it is in front
<b>.</b> and <b>,</b> walk it), beside a sentence saying why the selected detection is what it
is. <b>Enter</b> on a row opens it. Under them, the tags and note of what the tag keys tag.
</dd>
<dt><b>PR curve</b> (top right)</dt>
<dd>Precision/recall of the chosen class for every result set on the same axes; its dots are
coloured and shaped by false-positive kind. With all classes, point at a curve for its name and
click it to open the class. Segmentation results have no curve: their numbers are in the
Summary tab. Right-click to export the figure.</dd>
<dt><b>AP per class, Summary, Confusion, Analysis</b> (bottom right)</dt>
<dd><i>AP per class</i>: one AP column per result set with detections (click a class to
choose it). <i>Summary</i>: the protocol's summary numbers (COCO's twelve, VOC's mAP, the
segmentation IoU per class) with a column per result set. <i>Confusion</i>: a confusion matrix
whose cells list their detections or objects. <i>Analysis</i>: what each error costs
(TIDE), precision/recall as errors are removed (analyze()), AP by object characteristics and
the bootstrap's intervals and comparison; click a bar, band or bin to list its detections, and
a row to open it.</dd>
<dt><b>Messages</b> (bottom, View ▸ Messages, <b>Ctrl+M</b>)</dt>
<dd>Warnings and errors about the files read, each naming the file and the line or element,
said once.</dd>
</dl>

<h3>The menus</h3>
<dl>
<dt><b>File</b></dt>
<dd>Open dataset folder, Open annotation file, Open Recent (each dataset with the result sets
that loaded and the image set last browsed), Open demo dataset, Add results, Add results
folder, Open session, Save session; Export PR figure (<b>Ctrl+E</b>), Export image, Export AP
table and Export confusion matrix write what is shown; Export the listed images as a dataset
(the images the list shows, with their annotations and the loaded results, as a new COCO, VOC
or YOLO folder, never inside the dataset); Quit (<b>Ctrl+Q</b>).</dd>
<dt><b>View</b></dt>
<dd>Next image and Previous image, Next false positive and Previous false positive, Find
image; the drawing toggles Ground truth (<b>G</b>), Detections (<b>D</b>), Labels (<b>L</b>),
Scores in labels (<b>C</b>), Masks (COCO) (<b>M</b>), Keypoints (COCO) (<b>K</b>), Person
parts and actions (VOC) (<b>H</b>), Only true positives (<b>T</b>) and Segmentation overlay
(<b>S</b>). View ▸ Palette: Colour-blind safe (default), Classic, High contrast, and Verdict
in every label. View ▸ Show: All boxes, Only true positives, Only false positives, Only
missed objects. Load per-class thresholds… (a class -> threshold JSON, as <i>vocviewer
analyze --deploy-thresholds</i> writes it) and One score threshold for all classes. Then
Thumbnail grid, Patches, Filter panel, Larger thumbnails, Smaller thumbnails, Fit to window
(<b>F</b>), Actual size (<b>1</b>), Zoom
in, Zoom out, Zoom to selection, Cancel evaluation, Messages, and View ▸ Theme: System,
Light or Dark.</dd>
<dt><b>Walk</b></dt>
<dd>viewdet's walk over the ranked detections of the chosen class: Next detection
(<b>.</b>), Previous detection (<b>,</b>), Next of the same verdict (<b>&gt;</b>), Previous of
the same verdict (<b>&lt;</b>). What it visits: Every detection, Only true positives, Only
false positives, Only FP: duplicate, Only FP: poor localisation, Only FP: wrong class
(similar), Only FP: wrong class (other), Only FP: background, Only FP: wrong class (similar or
other), or Missed objects; Cycle walk mode (<b>W</b>) goes through them. Zoom to each step
zooms the image to every detection visited. Show follows the walk (on by default) draws only
what the walk visits, as viewdet's <i>onlytp</i>: walking only true positives hides the false
positives; walking every detection draws what View ▸ Show says.</dd>
<dt><b>Tags</b></dt>
<dd>Tag “label error” (<b>Alt+1</b>), Tag “missing annotation” (<b>Alt+2</b>), Tag “wrong
class” (<b>Alt+3</b>), Tag “loose box” (<b>Alt+4</b>) and Tag “ambiguous” (<b>Alt+5</b>) add or
remove a tag on the current suspect (with the fix it suggests), else the selected object or
detection, else the image; Note (<b>Alt+N</b>) writes a note there. Tagged images are flagged
(⚑) in the image list, and tags are saved with the session. Export tags writes every tag as
CSV and JSON, and the tagged fixes as VOC XML annotation files, beside the dataset (never
into it).</dd>
<dt><b>Help</b></dt>
<dd>Keyboard shortcuts (<b>F1</b> or <b>?</b>) lists every key, Getting started is this
page, About vocviewer gives the versions for a bug report.</dd>
</dl>

<p>The same evaluation runs without a window: <code>vocviewer&nbsp;eval&nbsp;--help</code>.</p>
"""


def getting_started_html() -> str:
    """``GETTING_STARTED_HTML`` with the registry's dataset kinds filled in."""
    from vocviewer.gui.window import file_names

    return GETTING_STARTED_HTML.replace("DATASET_FOLDERS", file_names.dataset_folders()).replace(
        "ANNOTATION_FILES", file_names.annotation_files()
    )
