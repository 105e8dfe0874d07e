within Workbench.Power;
model Battery "Battery pack with state of charge, open-circuit voltage curve and series resistance"
  import Modelica.Units.SI;
  parameter Real capacity_ah(unit = "A.h", min = 0) = 40.0 "Rated capacity";
  parameter SI.Voltage v_empty = 24.0 "Open-circuit voltage at 0 % charge";
  parameter SI.Voltage v_full = 29.4 "Open-circuit voltage at 100 % charge";
  parameter SI.Resistance r_internal = 0.05 "Series resistance";
  parameter Real soc_initial(unit = "1", min = 0, max = 1) = 0.9 "State of charge at start";
  input SI.Current current(start = 0) "Load current drawn (positive discharges)"
    annotation(Placement(transformation(extent = {{-140, -20}, {-100, 20}})));
  output Real soc(unit = "1", min = 0, max = 1, start = 0.9) "State of charge"
    annotation(Placement(transformation(extent = {{100, 30}, {120, 50}})));
  output SI.Voltage voltage "Terminal voltage"
    annotation(Placement(transformation(extent = {{100, -10}, {120, 10}})));
  output SI.Power power "Power delivered to the load"
    annotation(Placement(transformation(extent = {{100, -50}, {120, -30}})));
protected
  SI.Voltage v_oc "Open-circuit voltage";
initial equation
  soc = soc_initial;
equation
  der(soc) = -current / (capacity_ah * 3600.0);
  v_oc = v_empty + (v_full - v_empty) * noEvent(max(0.0, min(1.0, soc)));
  voltage = v_oc - r_internal * current;
  power = voltage * current;
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
    graphics = {Rectangle(extent = {{-80, 60}, {80, -60}}, lineColor = {0, 0, 0}, fillColor = {255, 220, 120}, fillPattern = FillPattern.Solid),
                Text(extent = {{-70, 20}, {70, -20}}, textString = "SoC")}));
end Battery;
