"""Editorial and Tonelab: reference analysis as text, staging, relighting and film-look grading.

One module per tool step (each spec names its engine's path):
- ``editorial.analyze.run``: Editorial's analyse step, a reference photo written up as the five
  parameter texts;
- ``editorial.generate.run``: a catalogue photo staged, relit and graded; three variants;
- ``editorial.tonelab.analyze_run`` and ``editorial.tonelab.run``: Tonelab's analyse step (its
  three texts) and a base photo graded towards a reference and a camera look.
Shared by both tools: ``analysis`` (measuring and writing), ``looks``, ``vocabulary``.
"""
