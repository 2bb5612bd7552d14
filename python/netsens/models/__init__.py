"""What explains a run: measured curves out of a study's results, fitted lines and knees,
Martin's simple models, and the communication profile of Martin's Tables 3.2 / 4.1.
"""
