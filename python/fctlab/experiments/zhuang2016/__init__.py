"""Zhuang & Kaiser-Pendergrast, "Why Flow-Completion Time is the Right Metric
for Congestion Control (Rate Control Protocol)", CS244 reproduction, Stanford,
2016: the RCP figure of Dukkipati & McKeown (CCR 2006, Fig. 12) re-run in
ns-2 with the released RCP patch, on two hosts joined through one router, for
both readings of the Pareto sizes; and the report's explanation of RCP's
average FCT dipping below processor sharing (data sent with the first packet).
"""
