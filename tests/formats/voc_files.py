"""A small hand-written VOCdevkit on disk, one image per rule the reader must follow.

``make_devkit(tmp)`` writes ``tmp/VOCdevkit/VOC2012`` and returns the ``VOCdevkit`` folder.
``XML`` holds each annotation's text so tests can find the line of an element with ``line_of``.
"""

from __future__ import annotations

from pathlib import Path

XML: dict[str, str] = {}

XML["2008_000001"] = """<?xml version="1.0" encoding="utf-8"?>
<!-- written by hand; comments, attributes and a declaration are standard XML -->
<annotation verified="yes">
\t<folder>VOC2012</folder>
\t<filename>2008_000001.jpg</filename>
\t<size><width>500</width><height>375</height><depth>3</depth></size>
\t<segmented>1</segmented>
\t<object>
\t\t<name>dog</name>
\t\t<pose>Left</pose>
\t\t<truncated>1</truncated>
\t\t<difficult>0</difficult>
\t\t<bndbox><xmin>10</xmin><ymin>20</ymin><xmax>110</xmax><ymax>220</ymax></bndbox>
\t</object>
\t<object>
\t\t<name>person</name>
\t\t<pose> Frontal </pose>
\t\t<occluded>1</occluded>
\t\t<difficult> 1\t</difficult>
\t\t<bndbox><xmin>1.5</xmin><ymin>2.25</ymin><xmax>100.75</xmax><ymax>200.125</ymax></bndbox>
\t\t<part><name>head</name><bndbox><xmin>5</xmin><ymin>6</ymin><xmax>7</xmax><ymax>8</ymax></bndbox></part>
\t\t<part><name>hand</name><bndbox><xmin>9</xmin><ymin>10</ymin><xmax>11.5</xmax><ymax>12</ymax></bndbox></part>
\t\t<part><name>tail</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox></part>
\t</object>
\t<object>
\t\t<name>cat</name>
\t\t<pose>Sideways</pose>
\t\t<difficult>true</difficult>
\t\t<bndbox><xmin>0</xmin><ymin>-3</ymin><xmax>600</xmax><ymax>1e3</ymax></bndbox>
\t</object>
\t<object>
\t\t<name>car</name>
\t\t<difficult>1.0</difficult>
\t\t<truncated>yes</truncated>
\t\t<bndbox><xmin>50</xmin><ymin>40</ymin><xmax>30</xmax><ymax>20</ymax></bndbox>
\t</object>
\t<object>
\t\t<name>bus</name>
\t\t<bndbox><xmin>1</xmin><ymin>1</ymin><xmax>1</xmax><ymax>1</ymax></bndbox>
\t</object>
</annotation>
"""

# LabelImg style: attribute on the root, a <path>, a .png file name, no objects at all.
XML["2008_000002"] = """<annotation verified="yes">
  <folder>images</folder>
  <filename>2008_000002.png</filename>
  <path>C:\\Users\\me\\images\\2008_000002.png</path>
  <size><width>640</width><height>480.0</height><depth>3</depth></size>
  <segmented>0</segmented>
</annotation>
"""

XML["2008_000003"] = """<annotation>
  <filename>2008_000003.jpg</filename>
  <object>
    <name>dog</name>
    <bndbox><xmin>1</xmin><ymin>1</ymin><xmax>5</xmax><ymax>5</ymax></bndbox>
  </objekt>
</annotation>
"""

XML["2008_000004"] = """<annotation>
  <filename>2008_000004.jpg</filename>
  <size><width>100</width><height>abc</height></size>
  <object>
    <name>horse</name>
    <bndbox><xmin>1</xmin><ymin>2</ymin><xmax>3</xmax><ymax>4</ymax></bndbox>
  </object>
  <object>
    <name>unicorn</name>
    <bndbox><xmin>1</xmin><ymin>2</ymin><xmax>3</xmax><ymax>4</ymax></bndbox>
  </object>
  <object>
    <name>sheep</name>
    <bndbox>
      <xmin>abc</xmin>
      <ymin>2</ymin>
      <xmax>3</xmax>
      <ymax>4</ymax>
    </bndbox>
  </object>
  <object>
    <name>cow</name>
  </object>
  <object>
    <name>train</name>
    <bndbox><xmin>5</xmin><ymin>6</ymin><xmax>7</xmax><ymax>8</ymax></bndbox>
  </object>
</annotation>
"""

# Latin-1 encoded (declared), with a non-ASCII character.
XML["2010_000005"] = """<?xml version="1.0" encoding="ISO-8859-1"?>
<annotation>
  <source><database>Caf\xe9</database></source>
  <filename>2010_000005.jpg</filename>
  <size><width>300</width><height>200</height></size>
  <object>
    <name>person</name>
    <actions>
      <jumping>1</jumping><phoning>0</phoning><other>0</other><walking>1</walking>
    </actions>
    <bndbox><xmin>10</xmin><ymin>10</ymin><xmax>50</xmax><ymax>90</ymax></bndbox>
  </object>
  <object>
    <name>person</name>
    <bndbox><xmin>60</xmin><ymin>10</ymin><xmax>99</xmax><ymax>90</ymax></bndbox>
    <actions><running> 1 </running><flying>1</flying><reading>true</reading></actions>
  </object>
</annotation>
"""

# A VOC2007-shaped id, CRLF line endings.
XML["000006"] = (
    "<annotation>\r\n  <filename>000006.jpg</filename>\r\n"
    "  <object><name>bottle</name><difficult>0</difficult>\r\n"
    "    <bndbox><xmin>7</xmin><ymin>8</ymin><xmax>9</xmax><ymax>10</ymax></bndbox>\r\n"
    "  </object>\r\n</annotation>\r\n"
)

IMAGE_SETS: dict[str, str] = {
    "Main/train.txt": "2008_000001\n2008_000002\n\n2008_000004\n",
    "Main/val.txt": "2008_000003 extra\n000006\n2009_999999\n2009_999998\n",
    "Main/dog_train.txt": "2008_000001  1\n2008_000002 -1\n2008_000004 0\n",
    "Main/cat_val.txt": "2008_000003 1\n000006 x\n2009_999999 -1\n",
    "Segmentation/val.txt": "2008_000001\n",
    "Layout/val.txt": "2008_000001 2\n2008_000001 9\n2008_000004 x\n2008_000004 1\n",
    "Action/val.txt": "2010_000005 1\n2010_000005 2\n",
    "Action/train.txt": "2010_000005\n",
    "Action/jumping_val.txt": "2010_000005 1 1\n2010_000005 2 -1\n",
}

#: Image ids in the order ``read_voc`` must give them (sorted).
IDS = [
    "000006",
    "2008_000001",
    "2008_000002",
    "2008_000003",
    "2008_000004",
    "2009_999998",
    "2009_999999",
    "2010_000005",
]


def line_of(image_id: str, needle: str, nth: int = 1) -> int:
    """1-based line of the ``nth`` line containing ``needle`` in an annotation's text."""
    hits = [k for k, ln in enumerate(XML[image_id].split("\n"), start=1) if needle in ln]
    return hits[nth - 1]


def write_year(folder: Path) -> Path:
    """Write the annotations and image sets into ``folder`` (a year folder); return it."""
    (folder / "Annotations").mkdir(parents=True)
    (folder / "JPEGImages").mkdir()
    for image_id, text in XML.items():
        encoding = "latin-1" if 'encoding="ISO-8859-1"' in text else "utf-8"
        (folder / "Annotations" / f"{image_id}.xml").write_bytes(text.encode(encoding))
    # a macOS resource fork and a hidden image set: ignored
    (folder / "Annotations" / "._2008_000001.xml").write_bytes(b"\x00\x05\x16\x07\x00\x02")
    for name, text in IMAGE_SETS.items():
        path = folder / "ImageSets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (folder / "ImageSets" / "Main" / "._train.txt").write_bytes(b"\x00\x05\x16\x07")
    return folder


def make_devkit(tmp: Path) -> Path:
    """``tmp/VOCdevkit/VOC2012`` with everything above; returns ``tmp/VOCdevkit``."""
    write_year(tmp / "VOCdevkit" / "VOC2012")
    return tmp / "VOCdevkit"


def minimal_year(folder: Path, ids: tuple[str, ...] = ("a1", "b2")) -> Path:
    """A tiny valid year folder: one dog per image, ``Main/test`` listing ``ids``."""
    (folder / "Annotations").mkdir(parents=True)
    (folder / "ImageSets" / "Main").mkdir(parents=True)
    for image_id in ids:
        (folder / "Annotations" / f"{image_id}.xml").write_text(
            "<annotation><object><name>dog</name><bndbox><xmin>1</xmin><ymin>1</ymin>"
            "<xmax>9</xmax><ymax>9</ymax></bndbox></object></annotation>",
            encoding="utf-8",
        )
    (folder / "ImageSets" / "Main" / "test.txt").write_text("\n".join(ids) + "\n")
    return folder
