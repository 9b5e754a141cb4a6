"""What the window shows, without widgets: state, settings and the background work behind them.

Modules
-------
state
    ``AppState``: the observable holder of what is open and what is selected.
display_settings
    Score threshold, view mode and drawing toggles.
image_filter
    Which images the browser lists, in which order (pure numpy).
worker
    The one background-worker pattern (``Worker``, ``Jobs``: latest wins, stale results dropped).
debounce
    Coalescing bursts of refresh requests.
tasks, protocol_tasks
    What workers run (load, evaluate VOC / COCO / VisDrone / ILSVRC) and the indexes they build.
protocol_eval
    ``ProtocolEvaluation``: COCO / VisDrone / ILSVRC evaluation of the state, at a chosen IoU.
helper_process
    One helper process for long parses that would hold the interpreter lock.
"""
