within;
package Modelica "Bundled subset of the Modelica Standard Library, written for LunCoSim Workbench"
  extends Modelica.Icons.Package;

  package Icons "Icon base classes"
    partial package Package "Icon for a package"
      annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
        graphics = {Rectangle(extent = {{-100, -100}, {100, 100}}, lineColor = {128, 128, 128})}));
    end Package;
  end Icons;

  package Constants "Mathematical and physical constants (values as in MSL 4.0)"
    extends Modelica.Icons.Package;
    final constant Real pi = 3.14159265358979;
    final constant Real e = 2.71828182845905;
    final constant Real g_n(unit = "m/s2") = 9.80665 "Standard acceleration of gravity";
    final constant Real sigma(unit = "W/(m2.K4)") = 5.670374419e-8 "Stefan-Boltzmann constant";
    final constant Real R(unit = "J/(mol.K)") = 8.31446261815324 "Molar gas constant";
    final constant Real eps = 1e-15 "Small number";
  end Constants;

  package Units "SI unit types"
    extends Modelica.Icons.Package;
    package SI "SI types with units (subset)"
      extends Modelica.Icons.Package;
      type Time = Real(final quantity = "Time", final unit = "s");
      type Length = Real(final quantity = "Length", final unit = "m");
      type Position = Length;
      type Distance = Length(min = 0);
      type Velocity = Real(final quantity = "Velocity", final unit = "m/s");
      type Acceleration = Real(final quantity = "Acceleration", final unit = "m/s2");
      type Mass = Real(final quantity = "Mass", final unit = "kg", min = 0);
      type Force = Real(final quantity = "Force", final unit = "N");
      type Torque = Real(final quantity = "Torque", final unit = "N.m");
      type Angle = Real(final quantity = "Angle", final unit = "rad");
      type AngularVelocity = Real(final quantity = "AngularVelocity", final unit = "rad/s");
      type AngularMomentum = Real(final quantity = "AngularMomentum", final unit = "kg.m2/s");
      type MomentOfInertia = Real(final quantity = "MomentOfInertia", final unit = "kg.m2");
      type Power = Real(final quantity = "Power", final unit = "W");
      type Energy = Real(final quantity = "Energy", final unit = "J");
      type Voltage = Real(final quantity = "ElectricPotential", final unit = "V");
      type Current = Real(final quantity = "ElectricCurrent", final unit = "A");
      type Resistance = Real(final quantity = "Resistance", final unit = "Ohm");
      type Capacitance = Real(final quantity = "Capacitance", final unit = "F", min = 0);
      type Inductance = Real(final quantity = "Inductance", final unit = "H");
      type Frequency = Real(final quantity = "Frequency", final unit = "Hz");
      type AngularAcceleration = Real(final quantity = "AngularAcceleration", final unit = "rad/s2");
      type RotationalSpringConstant = Real(final quantity = "RotationalSpringConstant", final unit = "N.m/rad");
      type RotationalDampingConstant = Real(final quantity = "RotationalDampingConstant", final unit = "N.m.s/rad");
      type ElectricCharge = Real(final quantity = "ElectricCharge", final unit = "C");
      type Temperature = Real(final quantity = "ThermodynamicTemperature", final unit = "K", min = 0);
      type HeatFlowRate = Real(final quantity = "Power", final unit = "W");
      type HeatCapacity = Real(final quantity = "HeatCapacity", final unit = "J/K");
      type Area = Real(final quantity = "Area", final unit = "m2");
      type Emissivity = Real(final quantity = "Emissivity", final unit = "1");
      type TranslationalSpringConstant = Real(final quantity = "TranslationalSpringConstant", final unit = "N/m");
      type TranslationalDampingConstant = Real(final quantity = "TranslationalDampingConstant", final unit = "N.s/m");
    end SI;
  end Units;
end Modelica;
