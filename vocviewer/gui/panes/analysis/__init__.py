"""The Analysis tab.

Modules
-------
pane
    ``AnalysisPane``: the tab, its pages and their worker tasks.
members
    ``MemberList`` and the shared chart-over-list layout.
curves
    ``CurvesChart``: COCO analyze()-style curves per class.
characteristics
    ``CharacteristicsChart``: AP by object characteristic.
bootstrap
    ``BootstrapRow``: confidence intervals by bootstrap.
compare
    ``CompareView``: two result sets side by side.
pages
    ``AnalysisPage`` and the pages of the analyses beyond AP (``BUILTIN``, ``register_page``).
operating
    ``OperatingChart``: P / R / F1 against the score threshold; a click sets the threshold.
reliability
    ``ReliabilityChart``: the reliability diagram (D-ECE); a bin lists its detections.
lrp_page
    ``LRPChart``: optimal LRP per class, a class's LRP against the threshold.
"""
