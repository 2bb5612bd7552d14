"""A study's report: the HTML page, its tables and figures (as data, then drawn with plotly
and matplotlib), and the sections for the wide-area, ACE and live studies.
"""
